"""Infrastructure faults and cleanup: containers killed, paused or out of memory, dockerd restarted
mid-batch, and no labelled container left behind after close, SIGINT or SIGKILL of the owner."""

from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import threading
import time
from collections import Counter
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegym.sandbox.docker import DockerBackend, Engine
from codegym.sandbox.docker.cleanup import labelled_containers
from codegym.sandbox.docker.config import LABEL_OWNER
from codegym.sandbox.types import ExecRequest, ExecStatus, Limits
from tests.conftest import REPO_ROOT
from tests.helpers import interrupted_command
from tests.sandbox.docker_support import ADD_TESTS, docker_engine, sandbox_image

pytestmark = pytest.mark.docker

CODEGYM = str(Path(sys.executable).with_name("codegym"))


def sleepy(seconds: float) -> ExecRequest:
    solution = f"import time\ndef add(a, b):\n    time.sleep({seconds})\n    return a + b\n"
    return ExecRequest(files={"solution.py": solution}, tests={"test_hidden.py": ADD_TESTS})


@pytest.fixture()
def engine() -> Iterator[Engine]:
    engine = docker_engine()
    sandbox_image()
    yield engine
    engine.close()


def later(seconds: float, action) -> threading.Thread:
    def run() -> None:
        time.sleep(seconds)
        action()

    thread = threading.Thread(target=run, daemon=True)
    thread.start()
    return thread


def owned_by(engine: Engine, pid: int) -> list[dict]:
    return [
        c
        for c in labelled_containers(engine)
        if c["Labels"].get(LABEL_OWNER, "").split("|")[2:3] == [str(pid)]
    ]


def test_container_killed_from_outside_mid_run_is_replaced_and_the_run_retried(engine: Engine) -> None:
    with DockerBackend(image=sandbox_image(), workers=1) as backend:
        backend.start()
        victim = backend.containers()[0]
        later(0.6, lambda: engine.api.kill(victim))
        result = backend.execute(sleepy(1.5))
        assert result.status is ExecStatus.PASSED, result.message
        assert result.attempts == 2 and backend.pool.restarts == 1
        assert backend.containers() != [victim]
        assert [c["Id"] for c in labelled_containers(engine, backend.pool_id)] == backend.containers()


def test_batch_completes_when_containers_are_killed_mid_batch(engine: Engine) -> None:
    with DockerBackend(image=sandbox_image(), workers=2) as backend:
        backend.start()
        first = list(backend.containers())
        later(0.8, lambda: [engine.api.kill(cid) for cid in first])
        results = backend.execute_many([sleepy(0.3)] * 16)
        assert [r.status for r in results] == [ExecStatus.PASSED] * 16
        assert backend.pool.restarts >= 2 and not set(first) & set(backend.containers())


@pytest.mark.slow
def test_unresponsive_container_is_replaced(engine: Engine) -> None:
    with DockerBackend(image=sandbox_image(), workers=1) as backend:
        backend.start()
        victim = backend.containers()[0]
        later(0.3, lambda: engine.api.pause(victim))  # frozen: the worker can answer nothing
        request = ExecRequest(
            files=dict(sleepy(1.0).files), tests=dict(sleepy(1.0).tests), limits=Limits(timeout_s=2.0)
        )
        result = backend.execute(request)
        assert result.status is ExecStatus.PASSED, result.message
        assert result.attempts == 2 and backend.pool.restarts == 1
        assert victim not in [c["Id"] for c in labelled_containers(engine)]


def test_container_memory_limit_is_enforced_and_the_pool_survives(engine: Engine) -> None:
    # Each child stays under the address-space limit; together they exceed the container's cgroup.
    hog = (
        "import os\ndef add(a, b):\n    kids = []\n    for _ in range(6):\n        pid = os.fork()\n"
        "        if pid == 0:\n            block = bytearray(90 * 1024 * 1024)\n"
        "            for i in range(0, len(block), 4096):\n                block[i] = 1\n"
        "            os._exit(0)\n        kids.append(pid)\n"
        "    codes = [os.waitpid(pid, 0)[1] for pid in kids]\n    return a + b if not any(codes) else -1\n"
    )
    request = ExecRequest(
        files={"solution.py": hog}, tests={"test_hidden.py": ADD_TESTS}, limits=Limits(memory_mb=200)
    )
    with DockerBackend(image=sandbox_image(), workers=1, memory_mb=256) as backend:
        result = backend.execute(request)
        assert result.status in (ExecStatus.FAILED, ExecStatus.ERROR, ExecStatus.MEMORY), result.message
        follow_up = backend.execute(sleepy(0))
        assert follow_up.status is ExecStatus.PASSED


def _restart_dockerd() -> None:
    if Path("/run/systemd/system").is_dir():
        subprocess.run(["systemctl", "restart", "docker"], check=True, timeout=120)
        return
    pid = int(Path("/var/run/docker.pid").read_text())
    os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + 60
    while Path(f"/proc/{pid}").exists() and time.monotonic() < deadline:
        time.sleep(0.1)
    subprocess.run([str(REPO_ROOT / "scripts" / "ensure_docker.sh")], check=True, timeout=300)


def test_dockerd_restart_mid_batch_the_pool_rebuilds_and_the_batch_completes(engine: Engine) -> None:
    if os.geteuid() != 0:
        pytest.fail("restarting dockerd needs root (set CODEGYM_SKIP_DOCKER=1 to skip the docker tests)")
    with DockerBackend(image=sandbox_image(), workers=2, engine_wait_s=90) as backend:
        backend.start()
        before = set(backend.containers())
        restarter = later(1.0, _restart_dockerd)
        results = backend.execute_many([sleepy(0.25)] * 40)
        restarter.join(timeout=300)
        statuses = Counter(r.status for r in results)
        attempts = Counter(r.attempts for r in results)
        # Affected runs come back retried (passed) or as sandbox_error — never as the program's fault.
        assert set(statuses) <= {ExecStatus.PASSED, ExecStatus.SANDBOX_ERROR}, statuses
        assert statuses[ExecStatus.PASSED] >= 30, (statuses, attempts, backend.pool.restarts)
        assert backend.pool.restarts >= 1 and not before & set(backend.containers())
        assert backend.execute(sleepy(0)).status is ExecStatus.PASSED
        pool_id = backend.pool_id
    assert labelled_containers(engine, pool_id) == []


@pytest.mark.slow
def test_sigint_of_a_docker_judge_removes_its_containers(engine: Engine, tmp_path: Path) -> None:
    samples = tmp_path / "samples.jsonl"
    row = {"task_id": "HumanEval/0", "completion": "    import time\n    time.sleep(0.3)\n    return False\n"}
    samples.write_text("\n".join(json.dumps(row) for _ in range(300)) + "\n")
    argv = [CODEGYM, "judge", str(samples), "--pack", "humaneval", "--out", str(tmp_path / "out.jsonl")]
    judge = interrupted_command(
        [*argv, "--backend", "docker", "--workers", "2", "--no-reward"],
        lambda process: len(owned_by(engine, process.pid)) == 2,
        settle_s=1.0,
    )
    assert judge.returncode != 0, judge.output[-2000:]
    assert judge.waited_s < 60, judge.waited_s  # the 3 chunks in flight would take ~100 s: not waited for
    assert owned_by(engine, judge.pid) == [], judge.output[-2000:]
    assert (tmp_path / "out.jsonl").exists()


def test_sandbox_cleanup_removes_leftovers_of_a_killed_process(engine: Engine) -> None:
    script = (
        "import sys\nfrom codegym.sandbox.docker import DockerBackend\n"
        f"backend = DockerBackend(image={sandbox_image()!r}, workers=2)\nbackend.start()\n"
        "print('ready', flush=True)\nsys.stdin.read()\n"
    )
    with DockerBackend(image=sandbox_image(), workers=1) as alive:
        alive.start()
        victim = subprocess.Popen(
            [sys.executable, "-c", script], stdin=subprocess.PIPE, stdout=subprocess.PIPE, cwd=REPO_ROOT
        )
        assert victim.stdout is not None and victim.stdout.readline().strip() == b"ready"
        assert len(owned_by(engine, victim.pid)) == 2
        victim.kill()  # SIGKILL: no close(), no atexit
        victim.wait()
        assert len(owned_by(engine, victim.pid)) == 2
        completed = subprocess.run(
            [CODEGYM, "sandbox", "cleanup"], capture_output=True, text=True, timeout=120
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr
        assert int(re.search(r"removed (\d+) container", completed.stdout).group(1)) >= 2
        assert owned_by(engine, victim.pid) == []
        # a live owner's containers are kept
        assert [c["Id"] for c in labelled_containers(engine, alive.pool_id)] == alive.containers()
        assert alive.execute(sleepy(0)).status is ExecStatus.PASSED
