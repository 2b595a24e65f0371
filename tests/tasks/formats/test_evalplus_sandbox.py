"""EvalPlus end to end through the local sandbox: import records the canonical solution's answers
and times, and the harness judges programs against them with EvalPlus's rules."""

from __future__ import annotations

import gzip
import json
from pathlib import Path
from typing import Any

import pytest

from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecResult, ExecStatus, TestOutcome
from codegym.tasks.formats.base import RowContext, SkipRow, read_rows
from codegym.tasks.formats.evalplus import (
    EXPECTED_FIELD,
    RECORD_ERROR_FIELD,
    REF_TIME_FIELD,
    record_expected,
    task_from_row,
)
from codegym.tasks.formats.importer import DATA_FILE, import_dataset
from codegym.tasks.model import Task

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "evalplus"
CONTEXT = RowContext(pack="evalplus-test", file="rows.jsonl")


@pytest.fixture(scope="module")
def imported(local_backend: Any) -> dict[str, dict[str, Any]]:
    """Both fixtures' rows as `tasks import` writes them (recorded in the sandbox)."""
    rows = [*read_rows(FIXTURES / "HumanEvalPlus.jsonl"), *read_rows(FIXTURES / "MbppPlus.jsonl")]
    return {row["task_id"]: row for row in record_expected(rows, CONTEXT, local_backend.execute_many)}


@pytest.fixture(scope="module")
def tasks(imported: dict[str, dict[str, Any]]) -> dict[str, Task]:
    return {task_id: task_from_row(row, CONTEXT) for task_id, row in imported.items()}


def _run(backend: Any, task: Task, solution: str) -> ExecResult:
    return backend.execute(request_for_task(task, solution))


def test_import_records_answers_and_times(
    imported: dict[str, dict[str, Any]], tasks: dict[str, Task]
) -> None:
    for task_id, row in imported.items():
        assert RECORD_ERROR_FIELD not in row, task_id
        count = len(row["base_input"]) + len(row["plus_input"])
        assert len(row[EXPECTED_FIELD]) == len(row[REF_TIME_FIELD]) == count, task_id
        assert all(0 <= t < 1.0 for t in row[REF_TIME_FIELD]), task_id
    # types as the reference made them: tuples, big integers, non-finite floats, booleans for not-None
    assert [case.expected for case in tasks["HumanEval/8"].cases.cases][-1] == (8 * 10**40, 10**320)
    assert (
        tasks["HumanEval/55"].cases.cases[-1].expected
        == 222232244629420445529739893461909967206666939096499764990979600
    )
    assert tasks["Mbpp/580"].cases.cases[0].expected == (4, (6, (2, 4)), 6, 8)
    assert tasks["Mbpp/62"].cases.cases[2].expected == float("-inf")
    assert [case.expected for case in tasks["Mbpp/737"].cases.cases] == [True, False, True, False, True]
    assert all(case.timeout_s == 1.0 for case in tasks["Mbpp/2"].cases.cases)  # EvalPlus's floor


def test_tasks_import_records_in_its_own_sandbox(tmp_path: Path, local_backend: Any) -> None:
    rows = list(read_rows(FIXTURES / "MbppPlus.jsonl"))
    broken = dict(
        rows[0], task_id="Mbpp/9002", canonical_solution="\ndef similar_elements(a, b):\n  return 1 / 0\n"
    )
    source = tmp_path / "MbppPlus.jsonl.gz"
    with gzip.open(source, "wt", encoding="utf-8") as handle:
        handle.writelines(json.dumps(row) + "\n" for row in [*rows, broken])
    report = import_dataset("evalplus", source, name="mbppplus", out_dir=tmp_path / "packs")
    assert (report.rows_read, report.kept) == (12, 11)
    (skipped,) = report.skipped
    assert (
        skipped[0] == "Mbpp/9002"
        and "could not be recorded" in skipped[1]
        and "ZeroDivisionError" in skipped[1]
    )
    with gzip.open(report.pack_dir / DATA_FILE, "rt", encoding="utf-8") as handle:
        written = {row["task_id"]: row for row in map(json.loads, handle)}
    assert (
        written["Mbpp/295"][EXPECTED_FIELD] == [7, 16, 1, 1] and len(written["Mbpp/295"][REF_TIME_FIELD]) == 4
    )
    assert report.pack is not None
    task = report.pack.get("Mbpp/2")
    assert _run(local_backend, task, task.reference_solution).status is ExecStatus.PASSED


def test_every_canonical_solution_passes(local_backend: Any, tasks: dict[str, Task]) -> None:
    for task_id, task in tasks.items():
        result = _run(local_backend, task, task.reference_solution)
        assert result.status is ExecStatus.PASSED, (task_id, [t.message for t in result.tests][:3])
        assert result.tests_passed == len(task.cases)


def test_wrong_solutions_fail(local_backend: Any, tasks: dict[str, Task]) -> None:
    sum_product = tasks["HumanEval/8"]
    as_list = sum_product.prefix + "    return [sum(numbers), __import__('math').prod(numbers)]\n"
    result = _run(local_backend, sum_product, as_list)
    assert result.status is ExecStatus.FAILED and result.tests_passed == 0  # a list is not the tuple
    fib = tasks["HumanEval/55"]
    result = _run(local_backend, fib, fib.prefix + "    return 55 if n == 10 else n\n")
    assert [t.outcome for t in result.tests][:3] == [
        TestOutcome.PASSED,
        TestOutcome.PASSED,
        TestOutcome.FAILED,
    ]
    check_str = tasks["Mbpp/737"]
    result = _run(local_backend, check_str, "def check_str(string):\n  return string\n")
    assert result.status is ExecStatus.FAILED  # "" is not None, but the reference found no match


def test_special_oracles_accept_other_valid_answers(local_backend: Any, tasks: dict[str, Task]) -> None:
    find_zero = tasks["HumanEval/32"]
    newton = find_zero.prefix + (
        "    x = 10.0\n"
        "    for _ in range(200):\n"
        "        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n"
        "        x -= poly(xs, x) / d\n"
        "    return x\n"
    )
    assert _run(local_backend, find_zero, newton).status is ExecStatus.PASSED  # 3.0, not the recorded 1.0
    assert _run(local_backend, find_zero, find_zero.prefix + "    return 0.5\n").status is ExecStatus.FAILED
    others = {
        "Mbpp/2": "def similar_elements(a, b):\n  return sorted(set(a) & set(b), reverse=True)\n",
        "Mbpp/164": "def are_equivalent(a, b):\n  return None\n",
        "Mbpp/295": "def sum_div(n):\n  return 0\n",
        "Mbpp/737": "import re\ndef check_str(s):\n  return re.match('[aeiouAEIOU]', s) is not None\n",
    }
    for task_id, solution in others.items():
        result = _run(local_backend, tasks[task_id], solution)
        assert result.status is ExecStatus.PASSED, (task_id, [t.message for t in result.tests][:3])


def test_a_slow_answer_times_out_at_evalplus_limit(local_backend: Any, tasks: dict[str, Task]) -> None:
    fib = tasks["HumanEval/55"]
    slow = (
        fib.prefix
        + "    import time\n    if n == 0:\n        time.sleep(1.5)\n    a, b = 0, 1\n"
        + ("    for _ in range(n):\n        a, b = b, a + b\n    return a\n")
    )
    outcomes = [t.outcome for t in _run(local_backend, fib, slow).tests]
    assert outcomes == [TestOutcome.PASSED] * 5 + [TestOutcome.TIMEOUT, TestOutcome.PASSED]


def test_a_reference_that_fails_skips_its_row(local_backend: Any) -> None:
    (row,) = [r for r in read_rows(FIXTURES / "HumanEvalPlus.jsonl") if r["task_id"] == "HumanEval/55"]
    broken = dict(row, canonical_solution="    return 1 // n\n")
    huge = dict(row, task_id="HumanEval/9055", plus_input=[[30000]])  # 6270 digits: JSON cannot hold it
    recorded = record_expected([broken, huge], CONTEXT, local_backend.execute_many)
    assert (
        "ZeroDivisionError" in recorded[0][RECORD_ERROR_FIELD]
        and "input 5 of 7" in recorded[0][RECORD_ERROR_FIELD]
    )
    assert "4300" in recorded[1][RECORD_ERROR_FIELD] and EXPECTED_FIELD not in recorded[1]
    with pytest.raises(SkipRow, match="could not be recorded"):
        task_from_row(recorded[0], CONTEXT)


def test_an_answer_that_claims_equality_fails(local_backend: Any, tasks: dict[str, Task]) -> None:
    sum_product = tasks["HumanEval/8"]
    subclass = "class Eq(tuple):\n    def __eq__(self, other):\n        return True\n\n    __hash__ = tuple.__hash__\n"
    anything = "class Eq:\n    def __eq__(self, other):\n        return True\n"
    for trick, answer in ((subclass, "Eq((-1, -1))"), (anything, "Eq()")):
        solution = f"{sum_product.prefix}    return {answer}\n\n\n{trick}"
        result = _run(local_backend, sum_product, solution)
        assert result.status is ExecStatus.FAILED and result.tests_passed == 0, answer
