"""End-to-end training on CPU with a tiny model and the real local sandbox: GRPO, RLOO, PPO, resume
after SIGKILL, and a sandbox failure mid-run (multi-turn feedback: test_multiturn.py)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest
import torch
from transformers import AutoModelForCausalLM, TrainerCallback

from codegym.reward.config import COMPONENTS
from codegym.train.checkpoints import MANIFEST
from codegym.train.run import run_training
from tests.conftest import REPO_ROOT
from tests.train.conftest import small_config, small_config_dict


def weights(path: str | Path) -> dict[str, torch.Tensor]:
    return {k: v.detach().clone() for k, v in AutoModelForCausalLM.from_pretrained(path).state_dict().items()}


@pytest.mark.parametrize("algorithm", ["grpo", "rloo", "ppo"])
def test_a_few_steps_train_the_policy_and_log_every_component(
    algorithm: str, tiny_model_path: str, tmp_path: Path
) -> None:
    result = run_training(small_config(tiny_model_path, tmp_path, algorithm))
    assert result.status == "completed" and result.steps == 2
    before, after = weights(tiny_model_path), weights(tmp_path / "final-model")
    assert any(not torch.equal(before[k], after[k]) for k in before), "no parameter changed"
    history = json.loads((tmp_path / "checkpoint-2" / "trainer_state.json").read_text())["log_history"]
    logged = {key for entry in history for key in entry}
    for name in COMPONENTS:
        assert f"rewards/{name}/mean" in logged, sorted(logged)
    assert "codegym/hack_rate" in logged
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    assert samples and {"task_id", "completion", "status", "reward", "components", "flags"} <= set(samples[0])
    assert (tmp_path / "reward_components.png").stat().st_size > 1000
    assert (tmp_path / "checkpoint-1" / MANIFEST).exists()


class _KillSandboxWorkers(TrainerCallback):
    """Kills this process's sandbox workers after the first step: a sandbox failure mid-run."""

    def __init__(self) -> None:
        self.killed = 0

    def on_step_end(self, args, state, control, **kwargs):
        if state.global_step == 1:
            for pid in os.listdir("/proc"):
                if not pid.isdigit():
                    continue
                try:
                    status = Path(f"/proc/{pid}/status").read_text()
                    cmdline = Path(f"/proc/{pid}/cmdline").read_bytes()
                except OSError:
                    continue
                parent = int(
                    next(line.split()[1] for line in status.splitlines() if line.startswith("PPid:"))
                )
                if parent == os.getpid() and (b"bwrap" in cmdline or b"unshare" in cmdline):
                    os.kill(int(pid), signal.SIGKILL)
                    self.killed += 1
        return control


def test_a_sandbox_failure_mid_run_does_not_crash_training(tiny_model_path: str, tmp_path: Path) -> None:
    killer = _KillSandboxWorkers()
    result = run_training(
        small_config(tiny_model_path, tmp_path, "grpo", trl={"max_steps": 3}), extra_callbacks=[killer]
    )
    assert killer.killed >= 1
    assert result.status == "completed" and result.steps == 3
    assert result.metrics["reward_judge"]["judged"] >= 12


@pytest.mark.slow
def test_resume_after_sigkill_loses_at_most_one_interval(tiny_model_path: str, tmp_path: Path) -> None:
    config = tmp_path / "train.yaml"
    run_dir = tmp_path / "run"
    config.write_text(
        json.dumps(
            small_config_dict(
                tiny_model_path,
                run_dir,
                output={"dir": str(run_dir), "cache": "memory", "plot": False},
                trl={"max_steps": 40, "max_completion_length": 16, "save_steps": 2},
            )
        )
    )
    command = [sys.executable, "-m", "codegym.cli.app", "train", str(config)]
    first = subprocess.Popen(
        command, cwd=REPO_ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, start_new_session=True
    )
    deadline = time.monotonic() + 600
    try:
        while not (run_dir / "checkpoint-4" / MANIFEST).exists():
            assert first.poll() is None, "the first run ended before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.2)
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # kill -9, mid-step
        first.wait()
    killed_at = max(int(p.name.split("-")[1]) for p in run_dir.glob("checkpoint-*"))
    resumed = subprocess.run(
        [*command, "--resume", "auto", "--max-steps", str(killed_at + 2)],
        cwd=REPO_ROOT,
        capture_output=True,
        text=True,
        timeout=600,
    )
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    resumed_from = int(Path(summary["resumed_from"]).name.split("-")[1])
    assert resumed_from >= 4 and killed_at - resumed_from <= 2  # at most one save interval lost
    assert summary["steps"] == killed_at + 2
    state = json.loads((run_dir / f"checkpoint-{killed_at + 2}" / "trainer_state.json").read_text())
    assert state["global_step"] == killed_at + 2
