"""APPS and TACO rows (flat files and APPS's directory layout) become stdin/stdout and call tasks."""

from __future__ import annotations

import gzip
import json
import shutil
from pathlib import Path

import pytest

from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats.base import read_rows
from codegym.tasks.formats.contest import python3_problem
from codegym.tasks.registry import TaskRegistry
from tests.tasks.formats.helpers import FIXTURES, read_tasks

APPS = FIXTURES / "apps" / "problems.jsonl"
TACO = FIXTURES / "taco" / "problems.jsonl"


def test_stdio_row_passes_over_python2_solutions() -> None:
    tasks, _ = read_tasks("apps", APPS)
    task = tasks["10"]
    assert task.cases.kind == "stdio" and task.cases.function is None
    assert [(c.input, c.expected) for c in task.cases.cases] == [("3\n1 2 3\n", "6\n"), ("1\n-5\n", "-5\n")]
    assert task.reference_solution == "n = int(input())\nprint(sum(map(int, input().split())))\n"
    assert "earlier ones are not Python 3" in task.metadata["reference_note"]
    # APPS's harness: token-equal output, all-numeric output within np.allclose's defaults
    comparison = task.cases.comparison
    assert (comparison.match, comparison.float_rel, comparison.float_abs) == ("tokens", 1e-5, 1e-8)
    assert task.cases.case_timeout_s == 4.0
    assert task.prompt.startswith("Given n and then n integers") and "standard input" in task.prompt
    assert (task.metadata["difficulty"], task.metadata["url"]) == (
        "introductory",
        "https://example.org/problems/10",
    )


def test_cases_published_as_lists_of_lines_are_joined() -> None:
    tasks, _ = read_tasks("apps", APPS)
    assert [(c.input, c.expected) for c in tasks["11"].cases.cases] == [
        ("cat\ndog", "dog\ncat"),
        ("x\ny", "y\nx"),
    ]


def test_codewars_outputs_stay_wrapped_and_are_judged_unwrapped() -> None:
    tasks, _ = read_tasks("apps", APPS)
    cases = tasks["12"].cases
    assert (cases.kind, cases.function, cases.comparison.oracle) == ("call", "double_all", "unwrap_single")
    assert [(c.input, c.expected) for c in cases.cases] == [(([1, 2],), [[2, 4]]), (([],), [[]])]
    assert tasks["12"].entry_point == "double_all"


def test_leetcode_rows_call_a_solution_method_and_get_their_typing_import() -> None:
    tasks, _ = read_tasks("apps", APPS)
    task = tasks["13"]
    assert task.cases.function == "Solution.spread" and task.entry_point == "Solution"
    assert [(c.input, c.expected) for c in task.cases.cases] == [(([3, 1, 4],), 3), (([7],), 0)]
    # the harness's `from typing import List` made explicit: the reference runs on its own
    assert task.reference_solution.startswith("from typing import List\nclass Solution:")
    namespace: dict = {}
    exec(compile(task.reference_solution, "reference", "exec"), namespace)
    assert namespace["Solution"]().spread([3, 1, 4]) == 3
    assert "from typing import List\n\nclass Solution:" in task.prompt


def test_int_dict_keys_are_restored_as_the_harness_does() -> None:
    tasks, _ = read_tasks("apps", APPS)
    (case,) = tasks["14"].cases.cases
    assert case.input == ({2: 3, 10: 1},) and case.expected == [16]


def test_python2_only_problem_keeps_an_empty_reference_and_says_why() -> None:
    tasks, _ = read_tasks("apps", APPS)
    assert tasks["15"].reference_solution == ""
    assert tasks["15"].metadata["reference_note"] == "none of the 2 solutions is Python 3"


def test_rows_without_tests_are_reported_as_skipped() -> None:
    tasks, skipped = read_tasks("apps", APPS)
    assert set(tasks) == {"10", "11", "12", "13", "14", "15"}
    assert skipped == {
        "16": "input_output is empty: no tests",
        "17": "no test cases (input_output has empty inputs)",
    }


def test_directory_layout_reads_one_problem_per_folder() -> None:
    tasks, skipped = read_tasks("apps", FIXTURES / "apps" / "dir_layout")
    assert set(tasks) == {"0000", "0001"} and skipped == {"0002": "input_output is empty: no tests"}
    assert tasks["0000"].cases.kind == "stdio" and tasks["0000"].metadata["url"] == "https://example.org/0000"
    assert tasks["0001"].cases.function == "is_pal"
    assert [c.expected for c in tasks["0001"].cases.cases] == [[True], [False]]
    assert "def is_pal(w):" in tasks["0001"].prompt
    single, _ = read_tasks("apps", FIXTURES / "apps" / "dir_layout" / "0000")
    assert set(single) == {"0000"}


def test_bad_metadata_json_in_a_problem_folder_names_the_file(tmp_path: Path) -> None:
    folder = tmp_path / "0007"
    shutil.copytree(FIXTURES / "apps" / "dir_layout" / "0000", folder)
    (folder / "metadata.json").write_text("{oops")
    with pytest.raises(TaskPackError) as error:
        read_tasks("apps", tmp_path)
    assert error.value.task == "0007" and error.value.file.endswith("metadata.json")


def _fingerprints(source: Path) -> dict[str, str]:
    tasks, _ = read_tasks("apps", source)
    return {name: task.cases.fingerprint + task.reference_solution for name, task in tasks.items()}


def test_jsonl_gz_and_parquet_files_read_like_jsonl(tmp_path: Path) -> None:
    pytest.importorskip("pyarrow")
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = list(read_rows(APPS))
    gz = tmp_path / "apps.jsonl.gz"
    with gzip.open(gz, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in rows)
    parquet = tmp_path / "train-00000-of-00001.parquet"
    pq.write_table(pa.Table.from_pylist(rows), parquet)
    expected = _fingerprints(APPS)
    assert len(expected) == 6
    assert _fingerprints(gz) == expected
    assert _fingerprints(parquet) == expected


@pytest.mark.parametrize(
    ("change", "field", "message"),
    [
        ({"input_output": "{not json"}, "input_output", "not valid JSON"),
        (
            {"input_output": json.dumps({"inputs": ["1"], "outputs": []})},
            "input_output",
            "1 inputs but 0 outputs",
        ),
        (
            {"input_output": json.dumps({"fn_name": "f", "inputs": ["x"], "outputs": [1]})},
            "input_output",
            "lists of arg",
        ),
        (
            {"input_output": json.dumps({"fn_name": "1f", "inputs": [[1]], "outputs": [1]})},
            "input_output",
            "identifier",
        ),
        ({"solutions": json.dumps({"a": 1})}, "solutions", "JSON list"),
        ({"question": ""}, "question", "required"),
    ],
)
def test_bad_rows_get_one_error_naming_file_task_and_field(
    change: dict, field: str, message: str, tmp_path: Path
) -> None:
    row = {**next(read_rows(APPS)), **change}
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n")
    _, skipped = read_tasks("apps", source)
    assert message in skipped["10"]
    pack = tmp_path / "pack"
    pack.mkdir()
    shutil.copy(source, pack / "problems.jsonl")
    (pack / "pack.yaml").write_text("name: bad\nversion: '1'\nformat: apps\ndata: problems.jsonl\n")
    with pytest.raises(TaskPackError) as error:
        TaskRegistry([tmp_path]).load("bad")
    assert (error.value.task, error.value.field) == ("10", field)
    assert error.value.file.endswith("problems.jsonl:1")


def _write_pack(root: Path, rows: list[dict], extra: str = "") -> None:
    pack = root / "apps_mini"
    pack.mkdir()
    (pack / "problems.jsonl").write_text("".join(json.dumps(r) + "\n" for r in rows))
    (pack / "pack.yaml").write_text(
        f"name: apps_mini\nversion: '1'\nformat: apps\ndata: problems.jsonl\n{extra}"
    )


def test_a_pack_folder_loads_through_the_registry_with_options(tmp_path: Path) -> None:
    rows = [r for r in read_rows(APPS) if r["problem_id"] in (10, 13)]
    _write_pack(tmp_path, rows, "options:\n  match: lines\n  case_timeout_s: 2\n")
    pack = TaskRegistry([tmp_path]).load("apps_mini")
    assert set(pack.tasks) == {"10", "13"} and pack.format == "apps"
    assert pack.get("10").cases.comparison.match == "lines"
    assert pack.get("13").cases.case_timeout_s == 2.0
    assert pack.get("apps_mini/13").task_id == "apps_mini/13"


def test_a_pack_on_disk_must_load_whole(tmp_path: Path) -> None:
    _write_pack(tmp_path, list(read_rows(APPS)))
    with pytest.raises(TaskPackError, match="cannot be judged: input_output is empty") as error:
        TaskRegistry([tmp_path]).load("apps_mini")
    assert error.value.task == "16"


def test_unknown_options_are_an_error(tmp_path: Path) -> None:
    _write_pack(tmp_path, [next(read_rows(APPS))], "options:\n  float_tol: 1e-6\n")
    with pytest.raises(TaskPackError, match=r"unknown option.*float_tol") as error:
        TaskRegistry([tmp_path]).load("apps_mini")
    assert error.value.field == "options"


def test_taco_rows_are_named_by_row_index_with_literal_tags() -> None:
    tasks, skipped = read_tasks("taco", TACO)
    assert set(tasks) == {"0", "1"}
    assert skipped == {"row 3": "no test cases (input_output has empty inputs)"}
    first = tasks["0"]
    assert first.metadata["tags"] == ["Sorting"] and first.metadata["skill_types"] == ["Sorting"]
    assert first.metadata["raw_tags"] == ["sortings", "implementation"]
    assert (first.metadata["name"], first.metadata["source"], first.metadata["time_limit"]) == (
        "123_A. Sort them",
        "codeforces",
        "1 second",
    )
    assert first.cases.case_timeout_s == 4.0  # TACO's harness ignores time_limit
    square = tasks["1"]
    assert square.cases.function == "square" and square.metadata["skill_types"] == []
    assert [(c.input, c.expected) for c in square.cases.cases] == [((3,), [9]), ((0,), [0])]


@pytest.mark.parametrize("tags", ["__import__('os').system('false')", "['a', ", "{'a': 1}"])
def test_taco_tags_are_literals_never_evaluated(tags: str, tmp_path: Path) -> None:
    row = {**next(read_rows(TACO)), "tags": tags}
    source = tmp_path / "taco.jsonl"
    source.write_text(json.dumps(row) + "\n")
    _, skipped = read_tasks("taco", source)
    assert "must be a Python list literal" in skipped["row 1"]


def test_every_fixture_reference_is_python3() -> None:
    for format_name, source in (("apps", APPS), ("apps", FIXTURES / "apps" / "dir_layout"), ("taco", TACO)):
        tasks, _ = read_tasks(format_name, source)
        for task in tasks.values():
            assert task.reference_solution == "" or python3_problem(task.reference_solution) is None


def test_a_row_whose_every_case_the_statement_shows_is_skipped(tmp_path: Path) -> None:
    """Scraped rows often hold only the statement's samples: judged on those alone, a table of the
    shown answers would pass (red team L1). One case the statement does not show keeps the row."""
    row = next(r for r in read_rows(APPS) if str(r["problem_id"]) == "10")
    shown = (
        "Given n and then n integers, print their sum.\n\n-----Examples-----\nInput\n3\n1 2 3\n\nOutput\n6\n"
    )
    samples_only = {
        **row,
        "question": shown,
        "input_output": json.dumps({"inputs": ["3\n1 2 3\n"], "outputs": ["6\n"]}),
    }
    with_hidden = {
        **row,
        "problem_id": 99,
        "question": shown,
        "input_output": json.dumps({"inputs": ["3\n1 2 3\n", "2\n5 5\n"], "outputs": ["6\n", "10\n"]}),
    }
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(samples_only) + "\n" + json.dumps(with_hidden) + "\n")
    for fmt in ("apps", "taco"):
        tasks, skipped = read_tasks(fmt, source)
        assert list(tasks) == ["99"], fmt
        assert skipped == {"10": "every judged case is shown in the prompt (its statement or its examples)"}


def test_a_row_whose_examples_hold_blank_lines_is_skipped(tmp_path: Path) -> None:
    """Red team 15 R2: "each test case is preceded by an empty line" prints the examples with blank
    lines; judged on them alone, a table of their answers passed with full reward."""
    row = next(r for r in read_rows(APPS) if str(r["problem_id"]) == "10")
    inputs, outputs = ["2\n\n3\n1 2 3\n\n2\n5 5\n", "1\n\n4\n1 1 1 1\n"], ["6\n10\n", "4\n"]
    question = (
        "Each test case is preceded by an empty line. Print the sum of each test case.\n\n"
        f"-----Examples-----\nInput\n{inputs[0]}\nOutput\n{outputs[0]}\nInput\n{inputs[1]}\nOutput\n{outputs[1]}"
    )
    shown = {**row, "question": question, "input_output": json.dumps({"inputs": inputs, "outputs": outputs})}
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(shown) + "\n")
    tasks, skipped = read_tasks("apps", source)
    assert not tasks and list(skipped) == ["10"]


def call_row(problem_id: int, question: str, fn_name: str, inputs: list, outputs: list) -> dict:
    io = {"fn_name": fn_name, "inputs": inputs, "outputs": outputs}
    return {
        "problem_id": problem_id,
        "question": question,
        "input_output": json.dumps(io),
        "solutions": json.dumps([f"def {fn_name}(*args):\n    return None\n"]),
        "starter_code": "",
        "difficulty": "introductory",
        "url": "",
    }


def test_call_rows_of_the_statements_examples_are_skipped_whatever_their_spacing(tmp_path: Path) -> None:
    """Red team 14 P3: Codewars prints `find_uniq([ 1, 1, 1, 2, 1, 1 ]) == 2`, LeetCode
    `nums = [2,7,11,15]`; a row judged only on them is skipped like one spelled as repr spells it."""
    uniq = (
        "All numbers are equal except for one. Find it!\n\n```python\n"
        "find_uniq([ 1, 1, 1, 2, 1, 1 ]) == 2\nfind_uniq([ 0, 0, 0.55, 0, 0 ]) == 0.55\n```\n"
    )
    two_sum = (
        "Return indices of the two numbers that add up to target.\n\nExample 1:\n"
        "Input: nums = [2,7,11,15], target = 9\nOutput: [0,1]\n\nExample 2:\n"
        "Input: nums = [3,2,4], target = 6\nOutput: [1,2]\n"
    )
    rows = [
        call_row(1, uniq, "find_uniq", [[[1, 1, 1, 2, 1, 1]], [[0, 0, 0.55, 0, 0]]], [[2], [0.55]]),
        call_row(2, two_sum, "two_sum", [[[2, 7, 11, 15], 9], [[3, 2, 4], 6]], [[[0, 1]], [[1, 2]]]),
    ]
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    tasks, skipped = read_tasks("apps", source)
    assert not tasks and sorted(skipped) == ["1", "2"]


def test_a_call_row_whose_hidden_cases_only_occur_in_prose_is_kept(tmp_path: Path) -> None:
    """False-flag round 14 Q7a: 0 -> 0, 1 -> 1 and 2 -> 1 are numbers of the prose, not examples."""
    question = (
        "Given a non-negative integer x, return the square root of x rounded down.\n\n"
        "Example 1:\nInput: x = 4\nOutput: 2\n\nExample 2:\nInput: x = 8\nOutput: 2\n"
        "Explanation: the square root of 8 is 2.82842..., rounded down 2.\n\n"
        "Constraints: 0 <= x <= 2^31 - 1\n"
    )
    row = call_row(3, question, "mySqrt", [[4], [8], [0], [1], [2]], [[2], [2], [0], [1], [1]])
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n")
    tasks, skipped = read_tasks("apps", source)
    assert not skipped and len(tasks["3"].cases.cases) == 5


@pytest.mark.parametrize(
    "body",
    [
        "square(3) ==> 9\nsquare(10) ==> 100\n",
        "square(3); // => 9\nsquare(10); // => 100\n",
        "print(square(3))  # 9\nprint(square(10))  # 100\n",
        "| n | square(n) |\n|---|---|\n| 3 | 9 |\n| 10 | 100 |\n",
    ],
    ids=["==>", "; // =>", "print", "table"],
)
def test_call_rows_of_codewars_spellings_are_skipped(body: str, tmp_path: Path) -> None:
    """Red team 15 R3: these spellings were not read, so the row was kept and a table passed."""
    question = f"Return the square of n.\n\nExamples:\n```\n{body}```\n"
    rows = [
        call_row(1, question, "square", [[3], [10]], [[9], [100]]),
        call_row(2, question, "square", [[3], [10], [7]], [[9], [100], [49]]),  # 7 -> 49 is not shown
    ]
    source = tmp_path / "rows.jsonl"
    source.write_text("".join(json.dumps(row) + "\n" for row in rows))
    tasks, skipped = read_tasks("apps", source)
    assert list(tasks) == ["2"] and list(skipped) == ["1"]
