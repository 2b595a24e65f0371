"""open-r1 / PrimeIntellect verifiable coding problems: stdin_stdout and function_call test cases."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegym.tasks.formats.base import read_rows
from codegym.tasks.formats.open_r1 import unfence
from tests.tasks.formats.helpers import FIXTURES, read_tasks

OPEN_R1 = FIXTURES / "open_r1" / "problems.jsonl"
PRIME = FIXTURES / "open_r1" / "primeintellect.jsonl"


def test_stdin_stdout_row_with_a_fenced_gold_solution() -> None:
    tasks, _ = read_tasks("open-r1", OPEN_R1)
    task = tasks["vfc_100"]
    assert task.cases.kind == "stdio" and task.cases.comparison.match == "lines"
    assert [(c.input, c.expected) for c in task.cases.cases] == [("3\n", "6\n"), ("1\n", "1\n")]
    assert task.reference_solution == "n = int(input())\nprint(n * (n + 1) // 2)\n"
    assert task.metadata["problem_url"] == "https://example.org/1234"
    assert (task.metadata["source"], task.metadata["in_source_id"]) == ("apps", "1234")


def test_function_call_on_a_class_method_gets_typing_imports() -> None:
    tasks, _ = read_tasks("open-r1", OPEN_R1)
    task = tasks["vfc_101"]
    assert (task.cases.kind, task.cases.function) == ("call", "Solution.countEven")
    assert [(c.input, c.expected) for c in task.cases.cases] == [(([1, 2, 4],), 2), (([],), 0)]
    assert task.reference_solution.startswith("from typing import List\nclass Solution:")
    namespace: dict = {}
    exec(compile(task.reference_solution, "reference", "exec"), namespace)
    assert namespace["Solution"]().countEven([1, 2, 4]) == 2


def test_function_call_literals_json_or_python_and_wrapped_outputs() -> None:
    tasks, _ = read_tasks("open-r1", OPEN_R1)
    cases = tasks["vfc_102"].cases
    assert cases.function == "is_positive" and cases.comparison.oracle == "unwrap_single"
    assert [(c.input, c.expected) for c in cases.cases] == [((5,), [True]), ((-1,), [False])]


def test_other_languages_and_empty_tests_are_skipped() -> None:
    tasks, skipped = read_tasks("open-r1", OPEN_R1)
    assert set(tasks) == {"vfc_100", "vfc_101", "vfc_102"}
    assert skipped == {"vfc_103": "the tests are for cpp, not Python", "vfc_104": "no test cases"}


def test_primeintellect_rows_keep_json_strings_and_a_prompt() -> None:
    tasks, _ = read_tasks("open-r1", PRIME)
    task = tasks["vfc_200"]
    assert [(c.input, c.expected) for c in task.cases.cases] == [("abc\n", "ABC\n")]
    assert "Print the input word in upper case." in task.prompt
    assert task.reference_solution == "print(input().upper())\n"
    assert task.metadata["difficulty"] == "7"


def _one_row(tmp_path: Path, **change: object) -> Path:
    row = {**next(read_rows(OPEN_R1)), **change}
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps(row) + "\n")
    return source


def test_mixed_case_types_are_skipped(tmp_path: Path) -> None:
    info = {
        "language": "python",
        "test_cases": [
            {"input": "1", "output": "1", "type": "stdin_stdout"},
            {"fn_name": "f", "input": "[1]", "output": "1", "type": "function_call"},
        ],
    }
    _, skipped = read_tasks("open-r1", _one_row(tmp_path, verification_info=info))
    assert "expected all stdin_stdout or all function_call" in skipped["vfc_100"]


@pytest.mark.parametrize(
    ("case", "message"),
    [
        ({"fn_name": "f", "input": "[1, ", "output": "1", "type": "function_call"}, "JSON or Python literal"),
        ({"fn_name": "f", "input": "5", "output": "1", "type": "function_call"}, "list of arguments"),
        ({"fn_name": None, "input": "[1]", "output": "1", "type": "function_call"}, "share one fn_name"),
    ],
)
def test_bad_function_call_cases_are_reported(case: dict, message: str, tmp_path: Path) -> None:
    info = {"language": "python", "test_cases": [case]}
    _, skipped = read_tasks("open-r1", _one_row(tmp_path, verification_info=info))
    assert message in skipped["vfc_100"]


def test_unusable_gold_solution_leaves_an_empty_reference(tmp_path: Path) -> None:
    tasks, _ = read_tasks("open-r1", _one_row(tmp_path, gold_standard_solution="```python\nprint 1\n```"))
    task = tasks["vfc_100"]
    assert task.reference_solution == ""
    assert task.metadata["reference_note"].startswith("gold_standard_solution is not usable: not Python 3")


def test_unfence_takes_the_last_block() -> None:
    assert unfence("plain") == "plain"
    assert unfence("text\n```python\na = 1\n```\nmore\n```py\nb = 2\n```") == "b = 2\n"
