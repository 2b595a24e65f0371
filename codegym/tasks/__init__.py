"""codegym.tasks: task-pack formats, discovery, registry and validation. It never runs code."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.model import Limits, Task, TaskPack, TestSuite

if TYPE_CHECKING:
    from codegym.tasks.registry import TaskRegistry

__all__ = ["Limits", "Task", "TaskPack", "TaskPackError", "TaskRegistry", "TestSuite", "UnknownNameError"]


def __getattr__(name: str) -> Any:
    # The registry (pack formats, YAML, entry points: ~30 ms of imports) loads on first use: the
    # sandbox needs only the task model, and a judge command starts its workers before it loads.
    if name == "TaskRegistry":
        from codegym.tasks.registry import TaskRegistry

        return TaskRegistry
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
