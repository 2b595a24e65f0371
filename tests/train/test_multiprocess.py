"""Runs that span processes: `accelerate launch` with two CPU processes (gloo), SIGKILL and resume,
setup done once, every rank's RNG state sealed; and a finished run that is resumed trains nothing."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegym.train.checkpoints import MANIFEST, checkpoints, is_valid_checkpoint, seal_checkpoint
from codegym.train.run import default_sandbox_workers, run_training
from tests.conftest import REPO_ROOT
from tests.train.conftest import small_config

QUICKSTART_OVERRIDES = [
    # the quick start's config, made small enough for a test: a smaller tiny model, a few tasks
    "model.tiny={vocab_size: 400, hidden_size: 32, layers: 1, heads: 2, kv_heads: 1, intermediate_size: 64}",
    "model.sft_warmup_steps=3",
    "data.max_tasks=4",
    "evaluation.enabled=false",
    "output.plot=false",
    "trl.max_steps=400",  # never reached: the run is killed once a checkpoint past step 4 is sealed
    "trl.per_device_train_batch_size=4",
    "trl.num_generations=4",
    "trl.max_completion_length=12",
    "trl.save_steps=2",
    "trl.report_to=[]",
]


def kill_tree(pid: int) -> None:
    """SIGKILL a process and every descendant, children first seen, all at once (kill -9 of a job)."""
    import psutil

    root = psutil.Process(pid)
    family = [*root.children(recursive=True), root]
    for process in family:
        with contextlib.suppress(psutil.NoSuchProcess):
            process.send_signal(signal.SIGKILL)
    psutil.wait_procs(family, timeout=30)


def accelerate(config: Path, *extra: str) -> list[str]:
    launcher = Path(sys.executable).with_name("accelerate")
    return [
        str(launcher),
        "launch",
        "--multi_gpu",  # torchrun underneath; with no GPU, accelerate joins the processes over gloo
        "--num_processes",
        "2",
        "--num_machines",
        "1",
        "--mixed_precision",
        "no",
        "--dynamo_backend",
        "no",
        "-m",
        "codegym.cli.app",
        "train",
        str(config),
        *extra,
    ]


@pytest.mark.slow
def test_two_processes_train_checkpoint_die_and_resume(tmp_path: Path) -> None:
    run_dir = tmp_path / "run"
    config = REPO_ROOT / "configs" / "quickstart.yaml"
    overrides = ["--output-dir", str(run_dir), *QUICKSTART_OVERRIDES]
    env = {**os.environ, "OMP_NUM_THREADS": "1"}
    first = subprocess.Popen(
        accelerate(config, *overrides),
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
        env=env,
    )
    deadline = time.monotonic() + 600
    try:
        while not any(step >= 4 and is_valid_checkpoint(path) for step, path in checkpoints(run_dir)):
            assert first.poll() is None, "the two-process run ended before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.1)
    finally:
        kill_tree(first.pid)  # the launcher and both ranks (torchrun gives them sessions of their own)
        first.wait()
    killed_at, newest = next((step, path) for step, path in checkpoints(run_dir) if is_valid_checkpoint(path))
    manifest = json.loads((newest / MANIFEST).read_text())
    assert manifest["world_size"] == 2
    assert {"rng_state_0.pth", "rng_state_1.pth"} <= set(manifest["files"])  # sealed after both wrote
    assert json.loads((run_dir / "sft-model" / "codegym_sft.json").read_text())["steps"] == 3
    resumed = subprocess.run(
        accelerate(config, *overrides, "--resume", "auto", "--max-steps", str(killed_at + 2)),
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
        env=env,
    )
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    assert resumed.stdout.count("completed:") == 1, resumed.stdout  # one voice per run: rank 0 reports
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["steps"] == killed_at + 2 and Path(summary["resumed_from"]) == newest
    assert is_valid_checkpoint(run_dir / f"checkpoint-{killed_at + 2}")
    rows = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert {row["process"] for row in rows} == {0, 1}  # both shares logged, no line split by the other


def test_a_manifest_without_every_ranks_rng_state_is_not_a_checkpoint(tmp_path: Path) -> None:
    directory = tmp_path / "checkpoint-2"
    directory.mkdir()
    (directory / "trainer_state.json").write_text("{}")
    (directory / "rng_state_0.pth").write_bytes(b"0")
    seal_checkpoint(directory, 2, world_size=2)  # rank 1's file was not written yet
    assert not is_valid_checkpoint(directory)
    (directory / "rng_state_1.pth").write_bytes(b"1")
    seal_checkpoint(directory, 2, world_size=2)
    assert is_valid_checkpoint(directory)


def test_resuming_a_finished_run_trains_nothing(tiny_model_path: str, tmp_path: Path) -> None:
    config = small_config(tiny_model_path, tmp_path / "run")
    first = run_training(config)
    assert first.steps == 2
    again = run_training(config, resume="auto")
    assert again.status == "completed" and again.steps == 2 and again.message == "already finished"
    assert sorted(p.name for p in (tmp_path / "run").glob("checkpoint-*")) == ["checkpoint-1", "checkpoint-2"]


@pytest.mark.parametrize(("local_processes", "expected"), [(1, 4), (2, 2), (8, 1)])
def test_sandbox_workers_are_shared_among_local_processes(
    local_processes: int, expected: int, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("codegym.sandbox.local.usable_cpus", lambda: [0, 1, 2, 3])
    assert default_sandbox_workers(local_processes) == expected
