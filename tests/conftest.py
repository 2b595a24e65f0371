"""Shared fixtures. Hostile sandbox tests (marker `hostile`) only ever run inside a throwaway PID
namespace: in a normal run they are deselected and `tests/sandbox/test_hostile.py` re-runs them
under `unshare --pid --fork --mount-proc`."""

from __future__ import annotations

import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

THROWAWAY_ENV = "CODEGYM_THROWAWAY_PARENT_PIDNS"
REPO_ROOT = Path(__file__).resolve().parents[1]


def in_throwaway_pid_namespace() -> bool:
    parent = os.environ.get(THROWAWAY_ENV)
    return bool(parent) and os.readlink("/proc/self/ns/pid") != parent


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    if in_throwaway_pid_namespace():
        return
    hostile = [item for item in items if item.get_closest_marker("hostile")]
    if hostile:
        config.hook.pytest_deselected(items=hostile)
        items[:] = [item for item in items if not item.get_closest_marker("hostile")]


@pytest.fixture()
def host_listener() -> Iterator[socket.socket]:
    """A listening socket on the host's loopback: sandboxed programs must not reach it."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(5)
    server.setblocking(False)
    yield server
    server.close()


@pytest.fixture(scope="session")
def local_backend() -> Iterator[object]:
    from codegym.sandbox.local import LocalBackend

    with LocalBackend(workers=2) as backend:
        yield backend


@pytest.fixture(scope="session")
def task_registry():
    from codegym.tasks.registry import TaskRegistry

    return TaskRegistry()


@pytest.fixture(autouse=True)
def private_yardstick_store(
    tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch
) -> None:
    """CLI commands keep reference yardsticks under ~/.cache by default: never the tester's own."""
    path = tmp_path_factory.mktemp("yardsticks") / "yardsticks.sqlite"
    monkeypatch.setattr("codegym.reward.cache.default_yardstick_path", lambda: path)
