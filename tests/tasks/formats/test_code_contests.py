"""CodeContests rows: every test judges, public tests are visible, limits and named-file problems."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegym.tasks.formats.base import read_rows
from tests.tasks.formats.helpers import FIXTURES, read_tasks

ROWS = FIXTURES / "code_contests" / "problems.jsonl"


def test_all_tests_judge_and_public_ones_are_visible() -> None:
    tasks, _ = read_tasks("code_contests", ROWS)
    task = tasks["1000_A. Twice"]
    assert [(c.input, c.expected) for c in task.cases.cases] == [
        ("3\n", "6\n"),
        ("-4\n", "-8\n"),
        ("0\n", "0\n"),
        ("100\n", "200\n"),
    ]
    assert [(c.input, c.expected) for c in task.visible_cases.cases] == [("3\n", "6\n")]
    assert task.metadata["tests"] == {"public": 1, "private": 1, "generated": 2}
    # the dataset's tester: whitespace-separated tokens, numbers within 1e-5
    comparison = task.cases.comparison
    assert (comparison.match, comparison.float_abs, comparison.float_rel) == ("tokens", 1e-5, 0.0)
    assert task.prompt.startswith("Given an integer x, print 2x.")


def test_reference_is_the_first_python3_solution() -> None:
    tasks, _ = read_tasks("code_contests", ROWS)
    task = tasks["1000_A. Twice"]
    assert task.reference_solution == "x = int(input())\nprint(2 * x)\n"
    assert task.metadata["solutions"] == 3 and "reference_note" not in task.metadata
    assert tasks["1003_D. Private only"].reference_solution == ""
    assert tasks["1003_D. Private only"].metadata["reference_note"] == "no PYTHON3 solution among 2"


def test_time_limit_seconds_and_nanos_become_the_case_limit() -> None:
    tasks, _ = read_tasks("code_contests", ROWS)
    assert tasks["1000_A. Twice"].cases.case_timeout_s == 2.0
    assert tasks["1001_B. Half"].cases.case_timeout_s == 0.5
    assert tasks["1001_B. Half"].metadata["time_limit_s"] == 0.5
    assert tasks["1003_D. Private only"].cases.case_timeout_s == 4.0  # no time_limit published
    scaled, _ = read_tasks("code_contests", ROWS, options={"time_scale": 3})
    assert scaled["1001_B. Half"].cases.case_timeout_s == 1.5


def test_metadata_names_source_and_difficulty() -> None:
    tasks, _ = read_tasks("code_contests", ROWS)
    metadata = tasks["1000_A. Twice"].metadata
    assert (metadata["source"], metadata["difficulty"], metadata["cf_rating"]) == ("CODEFORCES", "A", 800)
    assert metadata["cf_tags"] == ["implementation", "math"]
    assert metadata["memory_limit_bytes"] == 256000000


def test_named_file_problems_and_testless_ones_are_skipped() -> None:
    tasks, skipped = read_tasks("code_contests", ROWS)
    assert set(tasks) == {"1000_A. Twice", "1001_B. Half", "1003_D. Private only"}
    assert skipped == {
        "120_A. Files": "it reads and writes files (input_file: 'input.txt'), not stdin/stdout",
        "120_B. Statement files": "its statement names the file 'input.txt' and never stdin/stdout",
        "1002_C. No tests": "no tests (public, private and generated are all empty)",
    }
    assert tasks["1003_D. Private only"].visible_cases is None


def test_a_problem_with_public_tests_only_is_skipped(tmp_path: Path) -> None:
    # the prompt shows the public tests: judged on them alone, a table of their answers would pass
    row = next(read_rows(ROWS))
    row["public_tests"] = {"input": ["3\n"], "output": ["6\n"]}
    row["private_tests"] = {"input": [], "output": []}
    row["generated_tests"] = {"input": [], "output": []}
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n")
    tasks, skipped = read_tasks("code_contests", source)
    assert not tasks and skipped == {
        "1000_A. Twice": "public tests only (the prompt shows every judged case)"
    }


def test_options_change_the_comparison() -> None:
    tasks, _ = read_tasks("code_contests", ROWS, options={"match": "lines", "float_abs": 0.0})
    comparison = tasks["1001_B. Half"].cases.comparison
    assert (comparison.match, comparison.float_abs) == ("lines", 0.0)
    assert tasks["1001_B. Half"].visible_cases.comparison == comparison


def test_proto_json_shapes_are_read_too(tmp_path: Path) -> None:
    """convert_riegeli_to_json writes repeated messages as lists and a Duration as "1.5s"."""
    row = next(read_rows(ROWS))
    row["public_tests"] = [{"input": "3\n", "output": "6\n"}]
    row["private_tests"] = [{"input": "4\n", "output": "8\n"}]
    row["generated_tests"] = None
    row["solutions"] = [
        {"language": "PYTHON", "solution": "print 1"},
        {"language": "PYTHON3", "solution": "print(1)"},
    ]
    row["time_limit"] = "1.5s"
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n")
    tasks, _ = read_tasks("code_contests", source)
    task = tasks["1000_A. Twice"]
    assert len(task.cases) == 2 and task.cases.case_timeout_s == 1.5
    assert task.reference_solution == "print(1)"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"public_tests": {"input": ["1"], "output": []}}, "needs as many outputs as inputs"),
        ({"public_tests": "1 2"}, "must be {input"),
        ({"time_limit": 3}, "must be {seconds, nanos}"),
        ({"solutions": "x"}, "must be {language"),
        ({"description": ""}, "is required"),
    ],
)
def test_bad_rows_are_reported(change: dict, message: str, tmp_path: Path) -> None:
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({**next(read_rows(ROWS)), **change}) + "\n")
    tasks, skipped = read_tasks("code_contests", source)
    assert not tasks and message in skipped["1000_A. Twice"]


def test_parquet_with_nested_structs_reads_like_jsonl(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    parquet = tmp_path / "train-00000-of-00039.parquet"
    pq.write_table(pa.Table.from_pylist(list(read_rows(ROWS))), parquet)
    from_jsonl, skipped_jsonl = read_tasks("code_contests", ROWS)
    from_parquet, skipped_parquet = read_tasks("code_contests", parquet)
    assert skipped_parquet == skipped_jsonl
    assert {n: t.fingerprint for n, t in from_parquet.items()} == {
        n: t.fingerprint for n, t in from_jsonl.items()
    }
