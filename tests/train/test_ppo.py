"""PPO on CPU with the tiny model, real TRL and the real local sandbox: the one-batch guard, episodes
per process, resume after SIGKILL (step budget, log history, callback state), the step recorded with
each sample, reward metrics summed over every chunk of an update, and a two-process run (gloo)."""

from __future__ import annotations

import json
import math
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState

from codegym.train.checkpoints import MANIFEST, checkpoints
from codegym.train.config import ConfigError, config_from_dict
from codegym.train.data import build_training_data
from codegym.train.ppo import ppo_arguments, response_length
from codegym.train.run import run_training
from codegym.train.setup import RunSetup
from tests.conftest import REPO_ROOT
from tests.train.conftest import small_config, small_config_dict


class CountLogs(TrainerCallback, ExportableState):
    """Records each logged PPO update; stateful, so only a resume that restores callback state
    continues the list where the checkpoint left it."""

    def __init__(self) -> None:
        self.logged_steps: list[int] = []

    def on_log(self, args: Any, state: Any, control: Any, logs: dict | None = None, **kwargs: Any) -> Any:
        if logs and "objective/scores" in logs:
            self.logged_steps.append(state.global_step)
        return control

    def state(self) -> dict[str, Any]:
        return {"args": {}, "attributes": {"logged_steps": self.logged_steps}}


def _history(checkpoint: Path) -> list[dict[str, Any]]:
    state = json.loads((checkpoint / "trainer_state.json").read_text())
    return [entry for entry in state["log_history"] if "objective/scores" in entry]


@pytest.mark.timeout(300)  # without the guard TRL's loop waits for a batch forever
def test_fewer_prompts_than_one_batch_fail_naming_the_file_and_field(
    tiny_model_path: str, tmp_path: Path
) -> None:
    config = small_config(tiny_model_path, tmp_path, "ppo", trl={"per_device_train_batch_size": 8})
    with pytest.raises(ConfigError) as error:
        run_training(config)  # 4 tasks, 8 prompts per update
    message = str(error.value)
    assert "\n" not in message
    assert message.startswith("test: trl.per_device_train_batch_size:"), message
    assert "needs 8 prompts" in message and "gives 4" in message
    assert not checkpoints(tmp_path)


@pytest.mark.parametrize("world_size", [1, 2, 4])
def test_max_steps_count_updates_on_any_number_of_processes(
    tiny_model_path: str, tmp_path: Path, world_size: int
) -> None:
    config = small_config(
        tiny_model_path, tmp_path, "ppo", trl={"max_steps": 3, "gradient_accumulation_steps": 2}
    )
    setup = RunSetup(config, tmp_path, tiny_model_path, build_training_data(config.data), rewards=None)
    args = ppo_arguments(setup, world_size)
    assert args.total_episodes == 3 * 4 * 2 * world_size
    # what PPOTrainer.__init__ makes of it: batch_size = per device x accumulation x processes,
    # num_total_batches = ceil(total_episodes / batch_size)
    batch_size = args.per_device_train_batch_size * args.gradient_accumulation_steps * world_size
    assert math.ceil(args.total_episodes / batch_size) == 3


def test_samples_record_their_step_and_metrics_cover_every_chunk(
    tiny_model_path: str, tmp_path: Path
) -> None:
    # two chunks of 2 per update of 4: TRL scores each chunk with its own reward-model call
    trl = {"max_steps": 2, "local_rollout_forward_batch_size": 2, "save_steps": 10}
    result = run_training(small_config(tiny_model_path, tmp_path, "ppo", trl=trl))
    assert result.status == "completed" and result.steps == 2
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    # as for GRPO/RLOO: the trainer's step when the batch was judged (updates done before it)
    assert [s["step"] for s in samples] == [0] * 4 + [1] * 4
    history = _history(tmp_path / "checkpoint-2")
    assert [entry["step"] for entry in history] == [1, 2]
    for entry in history:
        batch = [s for s in samples if s["step"] == entry["step"] - 1]
        assert entry["rewards/joint/mean"] == pytest.approx(entry["objective/scores"], abs=1e-6)
        tests = [s["components"]["tests"] for s in batch if s["components"].get("tests") is not None]
        assert entry["rewards/tests/mean"] == pytest.approx(sum(tests) / len(tests))
        errors = sum(s["reward"] is None for s in batch)
        assert entry["codegym/sandbox_error_rate"] == pytest.approx(errors / len(batch))
        assert 0 < entry["codegym/response_tokens"] <= 24  # trl.response_length
    # the chunks' rewards differ, so one chunk alone could not have matched the whole batch
    first = [s["reward"] for s in samples[:4]]
    assert sum(first[:2]) != pytest.approx(sum(first[2:]))


def test_response_length_counts_as_trl_does() -> None:
    # left padding, a 2-token prompt, then the response up to the first padding position
    attended = torch.tensor([0, 0, 1, 1, 1, 1, 1, 0, 0], dtype=torch.bool)
    assert response_length(attended, prompt_length=2) == 3
    # a padding token sampled mid-response ends it, as it does in TRL's per-sequence sums
    assert response_length(torch.tensor([0, 1, 1, 1, 0, 1], dtype=torch.bool), prompt_length=1) == 2
    assert response_length(torch.tensor([1, 1, 1, 1], dtype=torch.bool), prompt_length=1) == 3


RUN_SCRIPT = """
import json, sys
from codegym.train.config import config_from_dict
from codegym.train.run import run_training
from tests.train.test_ppo import CountLogs
config = config_from_dict(json.loads(sys.argv[1]), source="ppo.yaml")
run_training(config, resume=sys.argv[2] or None, extra_callbacks=[CountLogs()])
"""


def _ppo_config(model: str, run_dir: Path) -> dict[str, Any]:
    return small_config_dict(
        model,
        run_dir,
        "ppo",
        output={"dir": str(run_dir), "cache": "memory", "plot": False},
        trl={"max_steps": 4, "save_steps": 2, "response_length": 8},
    )


@pytest.mark.slow
def test_resume_after_sigkill_keeps_the_step_budget_history_and_callback_state(
    tiny_model_path: str, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    config = _ppo_config(tiny_model_path, run_dir)
    command = [sys.executable, "-c", RUN_SCRIPT, json.dumps(config)]
    first = subprocess.Popen(
        [*command, ""],
        cwd=REPO_ROOT,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
        start_new_session=True,
    )
    deadline = time.monotonic() + 300
    try:
        while not (run_dir / "checkpoint-2" / MANIFEST).exists():
            assert first.poll() is None, "the first run ended before it was killed"
            assert time.monotonic() < deadline
            time.sleep(0.1)
        assert first.poll() is None, "the first run finished before it was killed"
    finally:
        os.killpg(first.pid, signal.SIGKILL)  # kill -9, mid-run
        first.wait()
    assert not (run_dir / "summary.json").exists()

    resumed = subprocess.run([*command, "auto"], cwd=REPO_ROOT, capture_output=True, text=True, timeout=300)
    assert resumed.returncode == 0, resumed.stdout[-3000:] + resumed.stderr[-3000:]
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["resumed_from"] == str(run_dir / "checkpoint-2") and summary["steps"] == 4
    # saves only every save_steps: a budget shrunk to the remaining updates saved every step
    assert [step for step, _ in checkpoints(run_dir)] == [4, 2]
    final = json.loads((run_dir / "checkpoint-4" / "trainer_state.json").read_text())
    assert final["global_step"] == 4 and final["max_steps"] == 4 and final["episode"] == 16
    assert [entry["step"] for entry in _history(run_dir / "checkpoint-4")] == [1, 2, 3, 4]
    counted = final["stateful_callbacks"]["CountLogs"]["attributes"]["logged_steps"]
    assert counted == [1, 2, 3, 4]
    assert final["stateful_callbacks"]["AdaptiveLR"]["attributes"]["seen"] == 4  # rewards it observed
    assert (run_dir / "checkpoint-4" / "value_model" / "config.json").exists()

    # a finished run resumed again trains nothing more
    again = run_training(config_from_dict(config, source="ppo.yaml"), resume="auto")
    assert again.steps == 4 and [step for step, _ in checkpoints(run_dir)] == [4, 2]


@pytest.mark.slow
def test_two_processes_run_max_steps_updates_and_log_both_processes_rewards(
    tiny_model_path: str, tmp_path: Path
) -> None:
    run_dir = tmp_path / "run"
    config = _ppo_config(tiny_model_path, run_dir)
    config["data"]["max_tasks"] = 8  # one update: 4 prompts on each of 2 processes
    config["sandbox"] = {"workers": 2}
    config["trl"].update({"max_steps": 1, "response_length": 8, "local_rollout_forward_batch_size": 2})
    launch = [sys.executable, "-m", "torch.distributed.run", "--standalone", "--nproc_per_node", "2"]
    script = tmp_path / "run_ppo.py"
    script.write_text(RUN_SCRIPT)
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT)}
    done = subprocess.run(
        [*launch, str(script), json.dumps(config), ""],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
    )
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    state = json.loads((run_dir / "checkpoint-1" / "trainer_state.json").read_text())
    assert state["global_step"] == 1 and state["episode"] == 8  # 1 update of 4 samples x 2 processes
    (entry,) = _history(run_dir / "checkpoint-1")
    samples = [json.loads(line) for line in (run_dir / "samples.jsonl").read_text().splitlines()]
    assert len(samples) == 8
    assert entry["rewards/joint/mean"] == pytest.approx(entry["objective/scores"], abs=1e-6)
    style = [s["components"]["style"] for s in samples if s["components"].get("style") is not None]
    assert entry["rewards/style/mean"] == pytest.approx(sum(style) / len(style))
    manifest = json.loads((run_dir / "checkpoint-1" / MANIFEST).read_text())
    assert "value_model/model.safetensors" in manifest["files"]
