"""Reading the fixture files (tests/fixtures/datasets/<format>/, in the published schemas)."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from codegym.tasks.formats import get_format, tasks_from_rows
from codegym.tasks.formats.base import RowContext
from codegym.tasks.model import Task

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "datasets"


def read_tasks(
    format_name: str, source: Path, *, options: dict[str, Any] | None = None
) -> tuple[dict[str, Task], dict[str, str]]:
    """Tasks by name and skip reasons by row id, as `tasks import` reads a source."""
    dataset_format = get_format(format_name)
    context = RowContext("fixture", str(source), options=options or {})
    tasks, skipped = tasks_from_rows(dataset_format, dataset_format.rows(source), context, skip=True)
    return tasks, dict(skipped)
