"""The backend interface and the registry of backends (`local`, `docker`, `ray`)."""

from __future__ import annotations

import abc
import contextlib
import importlib
import threading
from collections.abc import Callable, Iterable
from typing import Any

from codegym.errors import CodegymError
from codegym.sandbox.pool import WorkerPool
from codegym.sandbox.types import ExecRequest, ExecResult
from codegym.tasks.errors import UnknownNameError


class SandboxUnavailable(CodegymError, RuntimeError):
    """The backend cannot run on this machine; the message says what is missing and how to fix it."""


class SandboxBackend(abc.ABC):
    """Runs ExecRequests in isolation. Thread-safe; use as a context manager to release workers."""

    name: str = ""

    def execute(self, request: ExecRequest) -> ExecResult:
        """Run one request; infrastructure failures come back as `sandbox_error`, never raised."""
        return self.execute_many([request])[0]

    @abc.abstractmethod
    def execute_many(
        self,
        requests: Iterable[ExecRequest],
        *,
        on_result: Callable[[int, ExecResult], None] | None = None,
        max_concurrency: int | None = None,
    ) -> list[ExecResult]:
        """Run a batch with bounded concurrency; results in input order."""

    async def aexecute(self, request: ExecRequest) -> ExecResult:
        """Async variant: the blocking execution runs in a thread, so the event loop keeps going."""
        import asyncio  # here: asyncio (and ssl with it) costs every CLI start ~50 ms otherwise

        return await asyncio.to_thread(self.execute, request)

    async def aexecute_many(self, requests: Iterable[ExecRequest]) -> list[ExecResult]:
        import asyncio

        return await asyncio.to_thread(self.execute_many, list(requests))

    @abc.abstractmethod
    def info(self) -> dict[str, Any]:
        """What this backend is and how it isolates, for `codegym sandbox info` and run records."""

    @property
    def image(self) -> str:
        """Identifies the execution environment (recorded in results for reproducibility)."""
        return ""

    def start(self) -> None:  # noqa: B027 - optional hook: start workers eagerly
        """Start workers now instead of on first use."""

    def start_in_background(self) -> None:  # noqa: B027 - optional hook
        """Begin starting workers while the caller does other work (loading a pack); the first
        execution waits for them, and a failed start is raised there."""

    @abc.abstractmethod
    def close(self) -> None:
        """Stop all workers and release resources."""

    def __enter__(self) -> SandboxBackend:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


class PooledBackend(SandboxBackend):
    """A backend whose executions go to a `WorkerPool` (`self.pool`); subclasses say how workers start."""

    pool: WorkerPool

    def start(self) -> None:
        self.pool.start()

    def start_in_background(self) -> None:
        self.pool.start_in_background()

    def execute(self, request: ExecRequest) -> ExecResult:
        return self.pool.execute(request)

    def execute_many(
        self,
        requests: Iterable[ExecRequest],
        *,
        on_result: Callable[[int, ExecResult], None] | None = None,
        max_concurrency: int | None = None,
    ) -> list[ExecResult]:
        return self.pool.execute_many(requests, on_result=on_result, max_concurrency=max_concurrency)

    def pool_state(self) -> dict[str, Any]:
        return {"restarts": self.pool.restarts, "executions": self.pool.executions}

    def close(self) -> None:
        self.pool.close()


BACKENDS: dict[str, str] = {
    "local": "codegym.sandbox.local:LocalBackend",
    "docker": "codegym.sandbox.docker:DockerBackend",
    "ray": "codegym.sandbox.ray:RayBackend",
}


# Backends begun by `start_backend_early`, by their `create_backend` arguments, until claimed.
_early: dict[str, SandboxBackend] = {}
_early_lock = threading.Lock()


def _early_key(name: str, workers: int, coverage: bool, options: dict[str, Any]) -> str:
    return repr((name, workers, coverage, sorted(options.items())))


def start_backend_early(name: str, *, workers: int = 0, coverage: bool = False, **options: Any) -> bool:
    """Create a backend now and start its workers in the background, for the `create_backend` call
    with the same arguments that is to come; True when one was begun.

    For a command line that knows which backend it will use before it has parsed its arguments and
    loaded its task pack (the CLI): the workers (for docker, the containers) come up meanwhile
    instead of after. A backend that cannot be created here is left for that later call to report;
    one that no call claims is closed by `close_early_backends` (and at exit by the backend's own
    finalizer). Nothing is shared: each early backend is a fresh pool handed to one caller."""
    key = _early_key(name, workers, coverage, options)
    try:
        backend = create_backend(name, workers=workers, coverage=coverage, **options)
        backend.start_in_background()
    except Exception:  # the later create_backend raises it again, where the command reports errors
        return False
    with _early_lock:
        previous = _early.pop(key, None)
        _early[key] = backend
    if previous is not None:
        previous.close()
    return True


def close_early_backends() -> None:
    """Close the early backends nobody claimed (the command failed first, or asked for another)."""
    with _early_lock:
        backends = list(_early.values())
        _early.clear()
    for backend in backends:
        with contextlib.suppress(Exception):
            backend.close()


def create_backend(name: str, *, workers: int = 0, coverage: bool = False, **options: Any) -> SandboxBackend:
    """Instantiate a backend by name; unknown names list the valid ones. `workers` 0 keeps the
    backend's default; `coverage` preloads coverage.py in its workers (the reward measures it).
    A backend begun with the same arguments by `start_backend_early` is handed over instead."""
    if _early:
        with _early_lock:
            early = _early.pop(_early_key(name, workers, coverage, options), None)
        if early is not None:
            return early
    if workers:
        options["workers"] = workers
    if coverage:
        from codegym.sandbox.local import COVERAGE_PRELOAD

        options["preload"] = COVERAGE_PRELOAD
    if name.startswith(("http://", "https://")):  # a running `codegym serve` judges on its side
        from codegym.serve.client import HttpBackend

        return HttpBackend(name, **options)
    target = BACKENDS.get(name)
    if target is None:
        raise UnknownNameError("sandbox backend", name, BACKENDS)
    module_name, _, attribute = target.partition(":")
    try:
        module = importlib.import_module(module_name)
    except ModuleNotFoundError as exc:
        raise SandboxUnavailable(f"sandbox backend {name!r} is not available: {exc}") from exc
    backend_class = getattr(module, attribute)
    return backend_class(**options)
