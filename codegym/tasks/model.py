"""Typed task objects: what crosses the tasks -> sandbox boundary.

A `Task` is everything needed to prompt a model and to judge what it writes. It never runs code.
"""

from __future__ import annotations

import functools
import hashlib
import json
from collections.abc import Mapping
from dataclasses import asdict, dataclass, field, replace
from types import MappingProxyType
from typing import Any, Literal

from codegym.tasks.cases import CaseSuite

TestRunnerChoice = Literal["auto", "fast", "pytest"]


@dataclass(frozen=True)
class Limits:
    """Resource limits for one judged execution of a task (all its tests together)."""

    timeout_s: float = field(default=10.0, metadata={"help": "Wall-clock limit for the whole run."})
    memory_mb: int = field(default=1024, metadata={"help": "Address-space limit of the program."})
    max_processes: int = field(default=32, metadata={"help": "Processes/threads the program may hold."})
    max_output_bytes: int = field(default=1_000_000, metadata={"help": "stdout+stderr before output_limit."})
    max_file_bytes: int = field(default=16 * 1024 * 1024, metadata={"help": "Largest file it may write."})
    max_open_files: int = field(default=256, metadata={"help": "Open file descriptors."})

    def __post_init__(self) -> None:
        timeout = self.timeout_s
        if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not timeout > 0:
            raise ValueError(f"Limits.timeout_s must be a number of seconds > 0, got {timeout!r}")
        for name in ("memory_mb", "max_processes", "max_output_bytes", "max_file_bytes", "max_open_files"):
            value = getattr(self, name)
            if not isinstance(value, int) or isinstance(value, bool) or value <= 0:
                raise ValueError(f"Limits.{name} must be a positive integer, got {value!r}")

    def merged(self, overrides: Mapping[str, Any]) -> Limits:
        return replace(self, **dict(overrides))


@dataclass(frozen=True)
class TestSuite:
    """Test modules keyed by the file name they have inside the sandbox (e.g. `test_hidden.py`)."""

    files: Mapping[str, str] = field(default_factory=dict)

    def __post_init__(self) -> None:
        object.__setattr__(self, "files", MappingProxyType(dict(self.files)))

    def __bool__(self) -> bool:
        return bool(self.files)


@dataclass(frozen=True)
class Task:
    """One task of a pack.

    The model writes the file `solution_path` (relative to the task's repo root). In completion mode
    its output is appended to `prefix` (HumanEval style); in solution mode it is the whole file.

    A task is judged by test modules (`hidden_tests`) or by input/output cases (`cases`: stdin/stdout
    or call-based, see codegym.tasks.cases), never both; `visible_cases` are the examples a prompt
    may show (the statement's own samples).
    """

    pack: str
    name: str
    prompt: str
    solution_path: str
    reference_solution: str
    hidden_tests: TestSuite
    visible_tests: TestSuite = field(default_factory=TestSuite)
    prefix: str = ""
    entry_point: str | None = None
    repo_files: Mapping[str, str] = field(default_factory=dict)
    limits: Limits = field(default_factory=Limits)
    test_runner: TestRunnerChoice = "auto"
    source: str = ""
    metadata: Mapping[str, Any] = field(default_factory=dict)
    cases: CaseSuite | None = None
    visible_cases: CaseSuite | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "repo_files", MappingProxyType(dict(self.repo_files)))
        object.__setattr__(self, "metadata", MappingProxyType(dict(self.metadata)))
        if self.cases is not None and self.hidden_tests:
            raise ValueError(f"task {self.task_id!r}: judged by test modules or by cases, not both")
        if self.cases is None and self.visible_cases is not None:
            raise ValueError(f"task {self.task_id!r}: visible_cases without cases")

    @property
    def task_id(self) -> str:
        """Globally unique id, `pack/name` (HumanEval tasks keep their own `HumanEval/N`)."""
        return self.name if "/" in self.name else f"{self.pack}/{self.name}"

    def solution_from_completion(self, completion: str) -> str:
        return self.prefix + completion

    @property
    def is_repo_task(self) -> bool:
        return bool(self.repo_files)

    @functools.cached_property
    def fingerprint(self) -> str:
        """sha256 of everything that decides a verdict: a different fingerprint is a different task."""
        payload = {
            "task_id": self.task_id,
            "solution_path": self.solution_path,
            "prefix": self.prefix,
            "reference": self.reference_solution,
            "entry_point": self.entry_point,
            "repo": dict(sorted(self.repo_files.items())),
            "hidden": dict(sorted(self.hidden_tests.files.items())),
            "visible": dict(sorted(self.visible_tests.files.items())),
            "limits": asdict(self.limits),
            "test_runner": self.test_runner,
        }
        if self.cases is not None:
            payload["cases"] = self.cases.fingerprint
        return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()


@dataclass(frozen=True)
class TaskPack:
    """A versioned, content-hashed collection of tasks."""

    name: str
    version: str
    description: str
    content_hash: str
    tasks: Mapping[str, Task]
    source: str = ""
    format: str = "directory"

    def __post_init__(self) -> None:
        object.__setattr__(self, "tasks", MappingProxyType(dict(self.tasks)))

    def __len__(self) -> int:
        return len(self.tasks)

    def get(self, task_id: str) -> Task:
        """Look a task up by `name` or full `task_id`; unknown names list the valid ones."""
        from codegym.tasks.errors import UnknownNameError

        task = self.tasks.get(task_id)
        if task is None:
            prefix = f"{self.name}/"
            if task_id.startswith(prefix):
                task = self.tasks.get(task_id[len(prefix) :])
        if task is None:
            raise UnknownNameError("task", task_id, list(self.tasks), where=f"pack {self.name!r}")
        return task
