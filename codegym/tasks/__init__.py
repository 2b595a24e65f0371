"""codegym.tasks: task-pack formats, discovery, registry and validation. It never runs code."""

from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.model import Limits, Task, TaskPack, TestSuite
from codegym.tasks.registry import TaskRegistry

__all__ = ["Limits", "Task", "TaskPack", "TaskPackError", "TaskRegistry", "TestSuite", "UnknownNameError"]
