"""LiveCodeBench reader: stringified JSON fields, compressed private tests (and the pickles that must be
refused), the contest-date window, functional vs stdin problems and LeetCode's `class Solution`."""

from __future__ import annotations

import base64
import json
import os
import pickle
import zlib
from datetime import date
from pathlib import Path
from typing import Any

import pytest

from codegym.tasks.cases import CaseSuite
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats import get_format, tasks_from_rows
from codegym.tasks.formats.base import RowContext, SkipRow, read_rows
from codegym.tasks.formats.livecodebench import decode_private_cases, in_date_window
from codegym.tasks.model import Task

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "livecodebench" / "test.jsonl"
LCB = get_format("livecodebench")


def rows() -> list[dict[str, Any]]:
    return list(read_rows(FIXTURE))


def load(**options: Any) -> tuple[dict[str, Task], list[tuple[str, str]]]:
    return tasks_from_rows(
        LCB, read_rows(FIXTURE), RowContext("lcb", str(FIXTURE), options=options), skip=True
    )


def compress(value: Any) -> str:
    """The lite release's form: base64(zlib(pickle(json string)))."""
    return base64.b64encode(zlib.compress(pickle.dumps(value))).decode("ascii")


def test_fixture_rows_keep_the_published_stringified_fields() -> None:
    for row in rows():
        for name in ("public_test_cases", "private_test_cases", "metadata"):
            assert isinstance(row[name], str)


def test_leetcode_class_solution_is_call_based_on_public_and_private_tests() -> None:
    tasks, skipped = load()
    assert skipped == []
    task = tasks["9001"]
    cases = task.cases
    assert cases is not None and cases.kind == "call" and cases.function == "Solution.countPairs"
    assert [c.input for c in cases.cases] == [([-1, 1, 2, 3, 1], 2), ([5, 5], 3), ([1, 1, 1], 3), ([0], 1)]
    assert [c.expected for c in cases.cases] == [3, 0, 3, 0]
    assert (
        cases.case_timeout_s == 6.0 and cases.comparison.oracle == "equal" and cases.comparison.float_rel == 0
    )
    assert task.visible_cases is not None and len(task.visible_cases) == 2  # the public tests
    assert task.entry_point == "Solution" and task.hidden_tests.files == {}
    assert "class Solution:\n    def countPairs(self, nums: List[int], target: int) -> int:" in task.prompt
    assert "from typing import List" in task.prompt  # nothing is pre-imported here, unlike LCB's harness
    assert task.metadata["platform"] == "leetcode" and task.metadata["contest_date"] == "2023-08-19T00:00:00"


def test_a_plain_function_starter_is_called_directly_and_json_values_become_data() -> None:
    task = load()[0]["9002"]
    assert task.cases is not None and task.cases.function == "overlap"
    assert task.cases.cases[0].input == ([1, 5], [3, 9]) and task.cases.cases[0].expected == [2, True]


def test_stdin_problems_are_stdio_compared_by_lines() -> None:
    task = load()[0]["abc900_a"]
    cases = task.cases
    assert cases is not None and cases.kind == "stdio" and cases.function is None
    assert cases.comparison.match == "lines"
    assert [(c.input, c.expected) for c in cases.cases] == [
        ("3 4\n", "7\n"),
        ("10 -2\n", "8\n"),
        ("0 0\n", "0\n"),
    ]
    assert "standard input" in task.prompt


def test_compressed_private_tests_are_decoded() -> None:
    row = rows()[0]
    private = json.loads(row["private_test_cases"])
    row["private_test_cases"] = compress(json.dumps(private))
    assert decode_private_cases(row["private_test_cases"]) == private
    task = LCB.task_from_row(row, RowContext("lcb", "test.jsonl"))
    assert task.cases is not None and [c.expected for c in task.cases.cases] == [3, 0, 3, 0]


def test_a_compressed_file_loads_as_a_pack(tmp_path: Path) -> None:
    data = [dict(r) for r in rows()]
    for row in data:
        row["private_test_cases"] = compress(row["private_test_cases"])
    (tmp_path / "lcb").mkdir()
    (tmp_path / "lcb" / "test5.jsonl").write_text("".join(json.dumps(r) + "\n" for r in data))
    (tmp_path / "lcb" / "pack.yaml").write_text(
        "name: lcb\nversion: '1'\nformat: livecodebench\ndata: test5.jsonl\n"
    )
    from codegym.tasks.registry import TaskRegistry

    pack = TaskRegistry([tmp_path], use_defaults=False, use_entry_points=False).load("lcb")
    assert len(pack) == 4 and len(pack.get("abc900_a").cases or ()) == 3


class _Shell:
    def __init__(self, command: str) -> None:
        self.command = command

    def __reduce__(self) -> tuple[Any, ...]:
        return (os.system, (self.command,))


class _Eval:
    def __reduce__(self) -> tuple[Any, ...]:
        return (eval, ("__import__('os').getpid()",))


@pytest.mark.parametrize("payload", ["shell", "eval"])
def test_a_malicious_pickle_is_refused_and_never_runs(tmp_path: Path, payload: str) -> None:
    marker = tmp_path / "pwned"
    evil = _Shell(f"touch {marker}") if payload == "shell" else _Eval()
    row = {**rows()[0], "private_test_cases": compress(evil)}
    with pytest.raises(TaskPackError) as info:
        LCB.task_from_row(row, RowContext("lcb", "test.jsonl", line=1))
    message = str(info.value)
    assert info.value.field == "private_test_cases" and info.value.task == "9001"
    assert "compressed pickle refused: the pickle names" in message
    assert ("system" in message) if payload == "shell" else ("eval" in message)
    assert not marker.exists()


def test_garbage_private_tests_name_the_field() -> None:
    context = RowContext("lcb", "test.jsonl")
    for value, fragment in (
        ("not json, not base64!", "neither JSON nor base64"),
        (base64.b64encode(b"plain bytes").decode(), "not zlib data"),
        (base64.b64encode(zlib.compress(b"no pickle")).decode(), "not a readable pickle"),
        (compress("[not json"), "unpickled string is not JSON"),
    ):
        with pytest.raises(TaskPackError, match=fragment) as info:
            LCB.task_from_row({**rows()[0], "private_test_cases": value}, context)
        assert info.value.field == "private_test_cases"


def test_date_window_keeps_the_benchmarks_contamination_control() -> None:
    row = rows()[0]  # 2023-08-19
    assert in_date_window(row, "2023-08-19", "2023-08-19")  # both ends included, midnight bounds
    assert not in_date_window(row, "2023-08-20")
    assert not in_date_window(row, None, "2023-08-18")
    assert in_date_window(row, date(2023, 1, 1), None)  # YAML reads unquoted dates as dates
    tasks, skipped = load(contest_date_from="2023-01-01", contest_date_to=date(2024, 3, 31))
    assert sorted(tasks) == ["9001", "9002"]
    assert dict(skipped).keys() == {"abc900_a", "1990_A"}
    assert dict(skipped)["abc900_a"] == (
        "outside the contest-date window: 2024-05-11T00:00:00 not in [2023-01-01, 2024-03-31]"
    )
    # LCB compares datetimes: a contest at 14:35 on the last day is after that day's midnight
    assert not in_date_window(rows()[3], None, "2022-11-30") and in_date_window(rows()[3], None, "2022-12-01")


def test_date_window_on_a_pack_on_disk_fails_loudly_on_rows_outside(tmp_path: Path) -> None:
    context = RowContext("lcb", str(FIXTURE), options={"contest_date_from": "2024-01-01"})
    with pytest.raises(TaskPackError, match="cannot be judged: outside the contest-date window"):
        tasks_from_rows(LCB, read_rows(FIXTURE), context, skip=False)
    with pytest.raises(TaskPackError) as info:
        LCB.task_from_row(rows()[0], RowContext("lcb", "x", options={"contest_date_to": "soon"}))
    assert info.value.field == "options.contest_date_to"


def test_mismatched_or_unjudgeable_tests() -> None:
    context = RowContext("lcb", "test.jsonl")
    stdin_row = rows()[2]
    with pytest.raises(TaskPackError, match="'stdin' but metadata names func_name") as info:
        LCB.task_from_row({**stdin_row, "metadata": '{"func_name": "solve"}'}, context)
    assert info.value.field == "public_test_cases"
    bad_input = json.dumps([{"input": "[1, 2]\n", "output": "3", "testtype": "functional"}])
    with pytest.raises(SkipRow, match="functional test 1 is not one JSON value per line"):
        LCB.task_from_row({**rows()[0], "public_test_cases": bad_input}, context)
    with pytest.raises(SkipRow, match="no tests"):
        LCB.task_from_row({**rows()[0], "public_test_cases": "[]", "private_test_cases": "[]"}, context)
    with pytest.raises(TaskPackError) as info:
        LCB.task_from_row({**rows()[0], "metadata": "{oops"}, context)
    assert info.value.field == "metadata"
    with pytest.raises(TaskPackError) as info:
        LCB.task_from_row({**rows()[0], "public_test_cases": '[{"input": 1}]'}, context)
    assert info.value.field == "public_test_cases" and "test 1 must be" in str(info.value)


def test_case_suites_survive_the_wire() -> None:
    for task in load()[0].values():
        assert task.cases is not None
        assert CaseSuite.from_wire(json.loads(json.dumps(task.cases.to_wire()))) == task.cases


COUNT_PAIRS = """
from typing import List


class Solution:
    def countPairs(self, nums: List[int], target: int) -> int:
        return sum(nums[i] + nums[j] < target for i in range(len(nums)) for j in range(i + 1, len(nums)))
"""


def test_fixture_problems_are_judged_as_lcb_judges_them(local_backend) -> None:
    from codegym.sandbox.requests import request_for_task

    tasks = load()[0]
    runs = [
        (tasks["9001"], COUNT_PAIRS, True),
        (tasks["9001"], COUNT_PAIRS.replace("< target", "<= target"), False),
        # LCB turns a returned tuple into a list before comparing
        (
            tasks["9002"],
            "def overlap(a, b):\n    lo, hi = max(a[0], b[0]), min(a[1], b[1])\n    return (max(0, hi - lo), lo <= hi)\n",
            True,
        ),
        (tasks["9002"], "def overlap(a, b):\n    return [0, True]\n", False),
        (tasks["abc900_a"], "a, b = map(int, input().split())\nprint(a + b, end='')\n", True),
        (tasks["abc900_a"], "print(sum(map(int, input().split())) + 1)\n", False),
        (tasks["1990_A"], "print(input()[::-1])\n", True),
    ]
    results = local_backend.execute_many([request_for_task(task, code) for task, code, _ in runs])
    for (task, _, should_pass), result in zip(runs, results, strict=True):
        assert result.passed is should_pass, (task.name, result.status, result.message, result.tests)
        if should_pass:
            assert result.tests_total == len(task.cases or ())


def test_cp_call_references_pass_and_stubs_fail(task_registry, local_backend) -> None:
    from codegym.sandbox.requests import request_for_task
    from codegym.tasks.validate import stub_for

    tasks = list(task_registry.load("cp_call").tasks.values())
    references = local_backend.execute_many([request_for_task(t, t.reference_solution) for t in tasks])
    stubs = local_backend.execute_many([request_for_task(t, stub_for(t)) for t in tasks])
    for task, reference, stub in zip(tasks, references, stubs, strict=True):
        assert reference.passed and reference.tests_total == len(task.cases or ()), (
            task.name,
            reference.message,
        )
        assert stub.tests_passed == 0, task.name


def test_a_row_with_public_tests_only_is_skipped(tmp_path: Path) -> None:
    """The prompt shows the public tests as examples: judged on them alone, a table of their answers
    would pass with full reward (red team L1)."""
    row = next(r for r in read_rows(FIXTURE) if r["question_id"] == "1990_A")
    source = tmp_path / "rows.jsonl"
    source.write_text(json.dumps({**row, "private_test_cases": "[]"}) + "\n")
    tasks, skipped = tasks_from_rows(LCB, read_rows(source), RowContext("lcb", str(source)), skip=True)
    assert not tasks
    assert dict(skipped) == {
        "1990_A": "every judged case is shown in the prompt (its statement or its examples)"
    }


def test_a_private_case_the_statement_never_works_keeps_the_row(tmp_path: Path) -> None:
    """False-flag round 14 Q7b: Sample Output 1 (paper) above Sample Input 2 (scissors) is not a
    worked example of the private case paper -> scissors."""
    statement = (
        "Print the hand that beats S in rock-paper-scissors.\n\nSample Input 1\n\nrock\n\n"
        "Sample Output 1\n\npaper\n\nSample Input 2\n\nscissors\n\nSample Output 2\n\nrock\n"
    )
    public = [
        {"input": i, "output": o, "testtype": "stdin"}
        for i, o in (("rock\n", "paper\n"), ("scissors\n", "rock\n"))
    ]
    private = [{"input": "paper\n", "output": "scissors\n", "testtype": "stdin"}]
    row = {
        **next(r for r in rows() if r["question_id"] == "abc900_a"),
        "question_content": statement,
        "public_test_cases": json.dumps(public),
        "private_test_cases": json.dumps(private),
    }
    tasks, skipped = tasks_from_rows(LCB, iter([row]), RowContext("lcb", "x"), skip=True)
    assert not skipped and len(tasks["abc900_a"].cases.cases) == 3
