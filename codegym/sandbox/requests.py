"""Turning a Task plus the model's file into an ExecRequest (the tasks -> sandbox bridge)."""

from __future__ import annotations

from typing import Literal

from codegym.sandbox.types import ExecRequest
from codegym.tasks.model import Task

Suite = Literal["hidden", "visible"]


def request_for_task(
    task: Task,
    solution: str,
    *,
    suite: Suite = "hidden",
    measure_coverage: bool = False,
    timing_repeats: int = 0,
    request_id: str = "",
    stop_at_first_failure: bool = False,
) -> ExecRequest:
    """The task's repo with `solution` at `solution_path`, judged by the chosen test suite (or, for
    input/output tasks, the chosen cases; coverage and timing are not measured for those)."""
    files = dict(task.repo_files)
    files[task.solution_path] = solution
    if task.cases is not None:
        cases = task.cases if suite == "hidden" else task.visible_cases
        if cases is None:
            raise ValueError(f"task {task.task_id!r} has no {suite} cases")
        return ExecRequest(
            files=files,
            tests={},
            solution_path=task.solution_path,
            entry_point=task.entry_point,
            limits=task.limits,
            test_runner="fast",
            request_id=request_id or task.task_id,
            timing_repeats=min(timing_repeats, 1),  # the verdict run is the one sample (see the worker)
            cases=cases,
            stop_at_first_failure=stop_at_first_failure,
        )
    tests = task.hidden_tests if suite == "hidden" else task.visible_tests
    if not tests:
        raise ValueError(f"task {task.task_id!r} has no {suite} tests")
    return ExecRequest(
        files=files,
        tests=tests.files,
        solution_path=task.solution_path,
        entry_point=task.entry_point,
        limits=task.limits,
        test_runner=task.test_runner,
        measure_coverage=measure_coverage,
        timing_repeats=timing_repeats,
        request_id=request_id or task.task_id,
    )
