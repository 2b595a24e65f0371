"""`codegym tasks check`: every task's reference passes its tests in the sandbox, and a trivially
wrong solution (bodies replaced by `pass`) fails at least one hidden test."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field

from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus
from codegym.tasks.model import Task, TaskPack
from codegym.tasks.validate import static_problems, stub_for


@dataclass
class TaskCheck:
    task_id: str
    problems: list[str] = field(default_factory=list)
    reference_tests: str = ""

    @property
    def ok(self) -> bool:
        return not self.problems


def _describe(result: ExecResult) -> str:
    failing = [
        f"{t.test_id} ({t.outcome.value}: {t.message[:120]})"
        for t in result.tests
        if t.outcome.value != "passed"
    ][:3]
    detail = f"; failing: {', '.join(failing)}" if failing else ""
    return f"{result.status.value}{': ' + result.message[:300] if result.message else ''}{detail}"


def check_pack(
    pack: TaskPack,
    backend: SandboxBackend,
    *,
    task_ids: list[str] | None = None,
    on_task: Callable[[TaskCheck], None] | None = None,
) -> list[TaskCheck]:
    tasks = [pack.get(t) for t in task_ids] if task_ids else list(pack.tasks.values())
    checks: dict[str, TaskCheck] = {}
    jobs: list[tuple[Task, str, ExecRequest]] = []
    for task in tasks:
        check = checks[task.task_id] = TaskCheck(task.task_id, static_problems(task))
        if check.problems:
            continue
        if task.reference_solution.strip() or task.cases is None:
            jobs.append((task, "reference/hidden", request_for_task(task, task.reference_solution)))
            if task.visible_tests or task.visible_cases is not None:
                jobs.append(
                    (
                        task,
                        "reference/visible",
                        request_for_task(task, task.reference_solution, suite="visible"),
                    )
                )
        else:
            check.reference_tests = "no reference in the dataset"
        try:
            stub = stub_for(task)
        except SyntaxError as exc:
            check.problems.append(f"cannot build the pass-body solution: {exc}")
            continue
        jobs.append((task, "stub/hidden", request_for_task(task, stub)))
    results = backend.execute_many([request for _, _, request in jobs])
    for (task, kind, _), result in zip(jobs, results, strict=False):
        check = checks[task.task_id]
        if result.status is ExecStatus.SANDBOX_ERROR:
            check.problems.append(f"{kind}: sandbox error (not the task's fault): {result.message}")
        elif kind.startswith("reference") and not result.passed:
            check.problems.append(f"{kind}: the reference solution does not pass: {_describe(result)}")
        elif kind == "reference/hidden":
            check.reference_tests = f"{result.tests_passed}/{result.tests_total}"
        elif kind == "stub/hidden" and result.passed:
            check.problems.append("stub/hidden: a solution whose bodies are `pass` passes every hidden test")
    ordered = [checks[t.task_id] for t in tasks]
    if on_task is not None:
        for check in ordered:
            on_task(check)
    return ordered
