"""Reading the fixture files (tests/fixtures/datasets/<format>/, in the published schemas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecResult
from codegym.tasks.formats import get_format, tasks_from_rows
from codegym.tasks.formats.base import RowContext
from codegym.tasks.model import Task
from codegym.tasks.validate import stub_solution

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "datasets"


def read_tasks(
    format_name: str, source: Path, *, options: dict[str, Any] | None = None
) -> tuple[dict[str, Task], dict[str, str]]:
    """Tasks by name and skip reasons by row id, as `tasks import` reads a source."""
    dataset_format = get_format(format_name)
    context = RowContext("fixture", str(source), options=options or {})
    tasks, skipped = tasks_from_rows(dataset_format, dataset_format.rows(source), context, skip=True)
    return tasks, dict(skipped)


def judge_references_and_stubs(
    backend: SandboxBackend, tasks: dict[str, Task]
) -> list[tuple[Task, ExecResult, ExecResult]]:
    """Each task with its reference's result and its pass-body stub's result, judged in one batch."""
    requests = []
    for task in tasks.values():
        requests.append(request_for_task(task, task.reference_solution))
        requests.append(request_for_task(task, stub_solution(task.reference_solution)))
    results = backend.execute_many(requests)
    return list(zip(tasks.values(), results[::2], results[1::2], strict=True))
