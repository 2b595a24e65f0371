"""How `codegym judge` starts: on the default local sandbox its workers begin before typer and the
commands are imported (`codegym.cli.entry`), and the command's session receives exactly them; any
command line that names another sandbox, a cluster or a reward configuration, or is not a judge,
starts nothing there. Real workers."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from codegym.cli.early import start_default_sandbox_early
from codegym.sandbox import backend as backends
from codegym.sandbox.backend import close_early_backends, create_backend
from tests.conftest import REPO_ROOT

CODEGYM = str(Path(sys.executable).with_name("codegym"))


def judge_argv(*extra: str) -> list[str]:
    return ["judge", "samples.jsonl", "--pack", "humaneval", "--out", "out.jsonl", *extra]


def begun() -> list:
    return list(backends._early.values())


def test_a_default_judge_begins_local_workers_that_the_command_receives() -> None:
    try:
        assert start_default_sandbox_early(judge_argv("--no-reward"))
        [early] = begun()
        with create_backend("local", coverage=True) as other:  # another backend than it asked for
            assert other is not early and begun() == [early]
        with create_backend("local") as backend:  # what a judge without a reward asks for
            assert backend is early and begun() == []
            backend.pool.start()  # the workers begun early (started here if not up yet) serve it
            assert len(backend.pool.describe()) == backend.pool.size
    finally:
        close_early_backends()


def test_a_rewarded_judge_begins_workers_that_measure_coverage() -> None:
    try:
        assert start_default_sandbox_early(judge_argv("--cache", "off"))
        [early] = begun()
        with create_backend("local") as other:
            assert other is not early
        with create_backend("local", coverage=True) as backend:  # the default reward measures it
            assert backend is early and begun() == []
    finally:
        close_early_backends()
    assert begun() == []


@pytest.mark.parametrize(
    ("argv", "workers"),
    [
        (judge_argv("--backend", "local", "--no-reward"), 0),
        (judge_argv("--backend=local", "--no-reward"), 0),
        (judge_argv("-b", "local", "--no-reward"), 0),
        (judge_argv("-blocal", "--no-reward"), 0),
        (judge_argv("--no-reward", "--workers", "1"), 1),
        (judge_argv("--no-reward", "--workers=1"), 1),
        (judge_argv("--no-reward", "-w", "1", "-b", "local"), 1),
        (judge_argv("--no-reward", "-w1"), 1),
        (judge_argv("--no-reward", "-b", "docker", "-b", "local", "-w", "2", "-w", "1"), 1),  # the last wins
    ],
)
def test_a_judge_naming_the_local_backend_or_its_workers_begins_those(argv: list[str], workers: int) -> None:
    """The command line that the issue's benchmark runs names `--backend local`: the same backend as
    the default, begun as early."""
    try:
        assert start_default_sandbox_early(argv)
        [early] = begun()
        with create_backend("local", workers=workers + 1) as other:  # another number of workers
            assert other is not early
        with create_backend("local", workers=workers) as backend:
            assert backend is early and begun() == []
    finally:
        close_early_backends()


@pytest.mark.parametrize(
    "argv",
    [
        judge_argv("-b", "docker"),
        judge_argv("--backend=ray", "-w", "1"),
        judge_argv("-b", "local", "-b", "docker"),  # the last wins, as in click
        judge_argv("--workers", "two"),
        judge_argv("-w-1"),
        judge_argv("--workers"),  # no value: the command says so
        judge_argv("--reward-config", "configs/reward/default.yaml"),
        judge_argv("--reward-config=configs/reward/default.yaml", "-b", "local"),
        judge_argv("--ray-address", "auto"),
        judge_argv("--help"),
        ["eval", "--no-reward"],
        ["tasks", "list"],
        [],
    ],
)
def test_other_command_lines_begin_nothing(argv: list[str]) -> None:
    try:
        assert not start_default_sandbox_early(argv)
        assert begun() == []
    finally:
        close_early_backends()


def test_the_console_script_judges_through_its_early_workers(tmp_path: Path) -> None:
    samples, out = tmp_path / "samples.jsonl", tmp_path / "out.jsonl"
    rows = [
        {
            "task_id": "HumanEval/0",
            "completion": "    return any(abs(a - b) < threshold for i, a in "
            "enumerate(numbers) for b in numbers[i + 1:])\n",
        },
        {"task_id": "HumanEval/0", "completion": "    return False\n"},
    ]
    samples.write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO_ROOT), os.environ.get("PYTHONPATH")])),
    }
    argv = [CODEGYM, "judge", str(samples), "--pack", "humaneval", "--no-reward", "--out", str(out)]
    completed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert completed.returncode == 0, completed.stderr
    judged = [json.loads(line) for line in out.read_text(encoding="utf-8").splitlines()]
    assert [row["passed"] for row in judged] == [True, False]
    # it ends without the interpreter's teardown: what it printed to a pipe is there all the same
    assert "2 rows judged, 1 passed" in completed.stdout and completed.stdout.endswith("\n")
    empty = tmp_path / "empty.jsonl"
    empty.write_text("", encoding="utf-8")
    argv = [
        CODEGYM,
        "judge",
        str(empty),
        "--pack",
        "humaneval",
        "--no-reward",
        "--out",
        str(tmp_path / "o.jsonl"),
    ]
    failed = subprocess.run(argv, env=env, capture_output=True, text=True, timeout=120, check=False)
    assert failed.returncode == 1 and "nothing was judged" in failed.stderr  # other exits as before


def test_the_sandbox_imports_without_the_task_registry() -> None:
    """The early start imports the sandbox only: the registry (pack formats, YAML, entry points)
    loads when the command loads its pack, while the workers start."""
    code = "import sys, codegym.sandbox.local, codegym.reward.session; print(sorted(m for m in ('codegym.tasks.registry', 'yaml', 'typer') if m in sys.modules))"
    completed = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=REPO_ROOT
    )
    assert completed.stdout.strip() == "[]"
    from codegym.tasks import TaskRegistry  # still importable from the package, on first use

    assert TaskRegistry.__name__ == "TaskRegistry"
