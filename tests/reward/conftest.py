"""Fixtures for reward tests: a coverage-preloaded sandbox, a tiny task pack, a real Redis server."""

from __future__ import annotations

import shutil
import socket
import subprocess
import time
from collections.abc import Iterable, Iterator
from pathlib import Path

import pytest

from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend
from codegym.sandbox.pool import WorkerPool
from codegym.sandbox.types import ExecRequest, ExecResult
from codegym.tasks.dirpack import load_directory_pack
from codegym.tasks.model import TaskPack
from tests.helpers import write_pack


@pytest.fixture(scope="session")
def reward_backend() -> Iterator[LocalBackend]:
    with LocalBackend(workers=2, preload=COVERAGE_PRELOAD) as backend:
        yield backend


@pytest.fixture(scope="session")
def mini_pack(tmp_path_factory: pytest.TempPathFactory) -> TaskPack:
    """`double` with visible and hidden tests, and `at_least` whose hidden test compares with >= and <=."""
    root = tmp_path_factory.mktemp("packs")
    write_pack(
        root,
        "mini",
        tasks={
            "double": {
                "test_visible.py": "from solution import double\n\ndef test_two():\n    assert double(2) == 4\n\n"
                "def test_three():\n    assert double(3) == 6\n",
                "test_hidden.py": "from solution import double\n\ndef test_ten():\n    assert double(10) == 20\n\n"
                "def test_negative():\n    assert double(-1) == -2\n\n"
                "def test_zero():\n    assert double(0) == 0\n\n"
                "def test_seven():\n    assert double(7) == 14\n",
            },
            "at_least": {
                "task.yaml": "entry_point: at_least\n",
                "prompt.md": "Return 4.",
                "starter.py": "def at_least(x):\n",
                "reference.py": "def at_least(x):\n    return 4\n",
                "test_visible.py": None,
                "test_hidden.py": "from solution import at_least\n\ndef test_bounds():\n"
                "    value = at_least(2)\n    assert value >= 4 and value <= 4\n",
            },
        },
    )
    return load_directory_pack(root / "mini")


class BrokenBackend(SandboxBackend):
    """A real pool whose workers cannot start (`false` exits at once): every run is a sandbox error."""

    name = "broken"

    def __init__(self) -> None:
        self.pool = WorkerPool(
            1, lambda slot: ["false"], backend_name="broken", start_timeout_s=5, max_retries=1
        )

    @property
    def image(self) -> str:
        return "broken:0"

    def execute(self, request: ExecRequest) -> ExecResult:
        return self.pool.execute(request)

    def execute_many(self, requests: Iterable[ExecRequest], **_: object) -> list[ExecResult]:
        return [self.execute(r) for r in requests]

    def info(self) -> dict:
        return {"backend": "broken"}

    def close(self) -> None:
        self.pool.close()


@pytest.fixture()
def broken_backend() -> Iterator[BrokenBackend]:
    backend = BrokenBackend()
    yield backend
    backend.close()


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


@pytest.fixture(scope="session")
def redis_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A real redis-server on loopback (Debian's package; scripts/setup.sh installs it)."""
    server = shutil.which("redis-server")
    assert server, "redis-server is not installed (apt-get install redis-server; scripts/setup.sh does this)"
    port = _free_port()
    workdir: Path = tmp_path_factory.mktemp("redis")
    process = subprocess.Popen(
        [
            server,
            "--port",
            str(port),
            "--bind",
            "127.0.0.1",
            "--save",
            "",
            "--appendonly",
            "no",
            "--dir",
            str(workdir),
        ],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=0.2):
                break
        except OSError:
            time.sleep(0.05)
    else:
        process.kill()
        raise RuntimeError("redis-server did not start")
    yield f"redis://127.0.0.1:{port}/0"
    process.terminate()
    process.wait(timeout=10)
