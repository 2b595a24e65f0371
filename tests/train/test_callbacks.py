"""Stability callbacks driven through transformers' own callback machinery (CallbackHandler,
TrainerState, TrainerControl) on synthetic log streams; a short real GRPO run for the trainer's log
and resume; checkpoint validity."""

from __future__ import annotations

import json
import random
import shutil
from pathlib import Path
from typing import Any

import pytest
import torch
from transformers import TrainerControl, TrainerState, TrainingArguments, get_linear_schedule_with_warmup
from transformers.trainer_callback import CallbackHandler, DefaultFlowCallback
from trl import GRPOConfig, RLOOConfig

from codegym.train.callbacks import (
    LR_SCALE_KEY,
    AdaptiveLR,
    StabilityMonitor,
    TrainingHalted,
    restore_callback_states,
)
from codegym.train.checkpoints import (
    is_valid_checkpoint,
    newest_valid_checkpoint,
    resolve_resume,
    seal_checkpoint,
)
from codegym.train.config import AdaptiveLRConfig, ConfigError, StabilityConfig, config_from_dict
from codegym.train.run import run_training
from tests.train.conftest import small_config


class Run:
    """A training loop's view of the callbacks: transformers' CallbackHandler hands them the real
    optimizer and scheduler, as a Trainer does."""

    def __init__(self, callbacks: list[Any], args: Any, lr: float = 0.1, main_process: bool = True) -> None:
        parameter = torch.nn.Parameter(torch.zeros(2))
        self.optimizer = torch.optim.SGD([parameter], lr=lr)
        self.scheduler = get_linear_schedule_with_warmup(self.optimizer, 0, 1000)
        self.handler = CallbackHandler(
            [DefaultFlowCallback(), *callbacks], None, None, self.optimizer, self.scheduler
        )
        self.args = args
        self.state = TrainerState(is_world_process_zero=main_process)
        self.control = TrainerControl()
        self.handler.on_train_begin(self.args, self.state, self.control)

    def step(self, logs: dict[str, float]) -> None:
        self.optimizer.step()
        self.scheduler.step()
        self.state.global_step += 1
        self.control = self.handler.on_log(self.args, self.state, self.control, dict(logs))

    def steps(self, stream: list[dict[str, float]]) -> None:
        for logs in stream:
            self.step(logs)


@pytest.fixture(scope="module")
def plain_args(tmp_path_factory: pytest.TempPathFactory) -> TrainingArguments:
    return TrainingArguments(output_dir=str(tmp_path_factory.mktemp("args")), report_to=[], use_cpu=True)


def rewards(means: list[float], zero_std: float = 0.0, batch_std: float = 0.3) -> list[dict[str, float]]:
    return [{"reward": m, "reward_std": batch_std, "frac_reward_zero_std": zero_std} for m in means]


def test_a_lucky_first_batch_sets_no_bar_after_the_warm_up(plain_args: TrainingArguments) -> None:
    # the reward rises steadily (0.03 a step) after a lucky first batch of 0.9
    stream = rewards([0.9] + [0.2 + 0.03 * i for i in range(24)])
    warm = AdaptiveLR(AdaptiveLRConfig(patience=4, warmup=4))
    Run([warm], plain_args).steps(stream)
    assert warm.events == [] and warm.scale == 1.0
    # without the warm-up the lucky batch is the bar, and a rising reward reads as a plateau
    cold = AdaptiveLR(AdaptiveLRConfig(patience=4, warmup=0))
    Run([cold], plain_args).steps(stream)
    assert cold.events and cold.events[0]["step"] == 5 and cold.events[0]["reason"].startswith("plateau")


def test_a_noisy_rise_is_no_plateau(plain_args: TrainingArguments) -> None:
    rng = random.Random(0)
    callback = AdaptiveLR(AdaptiveLRConfig(patience=6, warmup=8))
    Run([callback], plain_args).steps(rewards([0.1 + 0.02 * i + rng.gauss(0, 0.05) for i in range(40)]))
    assert callback.events == []


def test_a_flat_noisy_reward_is_a_plateau_only_after_warm_up_and_patience(
    plain_args: TrainingArguments,
) -> None:
    rng = random.Random(3)
    callback = AdaptiveLR(AdaptiveLRConfig(patience=4, warmup=8))
    Run([callback], plain_args).steps(rewards([0.3 + rng.gauss(0, 0.05) for _ in range(30)]))
    # the bar is set at the 9th reward; the earliest possible drop is 4 logs after it
    assert callback.events and callback.events[0]["step"] >= 8 + 1 + 4
    assert all(event["reason"].startswith("plateau") for event in callback.events)


def test_plateau_halves_the_learning_rate_and_records_why(
    tmp_path: Path, plain_args: TrainingArguments
) -> None:
    callback = AdaptiveLR(AdaptiveLRConfig(patience=3, warmup=2, min_delta=0.01), tmp_path / "lr.jsonl")
    run = Run([callback], plain_args)
    run.steps(rewards([0.1, 0.3, 0.5] + [0.5] * 12))
    # the smoothed reward catches up with the last rise, stops improving, then every 3 flat steps
    assert [e["step"] for e in callback.events] == [12, 15]
    assert callback.scale == 0.25
    assert callback.events[0]["reason"].startswith("plateau: the smoothed mean reward")
    assert run.scheduler.base_lrs == [pytest.approx(0.025)]
    lr = run.optimizer.param_groups[0]["lr"]
    assert run.scheduler.get_last_lr() == [lr]  # what a Trainer logs as learning_rate
    run.step({})
    assert run.optimizer.param_groups[0]["lr"] < lr  # the schedule keeps its shape at the new scale
    recorded = [json.loads(line) for line in (tmp_path / "lr.jsonl").read_text().splitlines()]
    assert recorded == callback.events


def test_variance_collapse_reads_within_group_spread(plain_args: TrainingArguments) -> None:
    # every group uniform, the groups differ (the batch std is high): advantages are all zero
    collapsed = AdaptiveLR(AdaptiveLRConfig(patience=2, warmup=1, collapse_fraction=0.9))
    Run([collapsed], plain_args).steps(rewards([0.1 * i for i in range(1, 6)], zero_std=1.0, batch_std=0.4))
    assert collapsed.events and collapsed.events[0]["step"] == 3
    assert collapsed.events[0]["reason"].startswith("variance collapse: in 100% of groups")
    # a batch std near zero with spread inside the groups is no collapse (the old rule fired here)
    spread = AdaptiveLR(AdaptiveLRConfig(patience=2, warmup=1))
    Run([spread], plain_args).steps(rewards([0.1 * i for i in range(1, 6)], zero_std=0.25, batch_std=1e-6))
    assert spread.events == []


def test_the_rate_never_drops_below_min_scale(plain_args: TrainingArguments) -> None:
    callback = AdaptiveLR(AdaptiveLRConfig(patience=1, warmup=0, factor=0.5, min_scale=0.2))
    Run([callback], plain_args).steps(rewards([0.0] * 30))
    assert callback.scale == pytest.approx(0.2)
    assert len(callback.events) == 3  # 0.5, 0.25, then clamped to 0.2
    assert callback.log_metrics() == {LR_SCALE_KEY: pytest.approx(0.2)}


def test_state_survives_both_resume_paths(tmp_path: Path, plain_args: TrainingArguments) -> None:
    events = tmp_path / "lr.jsonl"
    callback = AdaptiveLR(AdaptiveLRConfig(patience=1, warmup=0), events)
    monitor = StabilityMonitor(
        StabilityConfig(entropy_alarm=0.5, hack_rate_stop=0.3), tmp_path / "alarms.jsonl"
    )
    run = Run([callback, monitor], plain_args)
    run.steps([{"reward": 0.1, "entropy": 0.1, "codegym/hack_rate": 0.9}, {"reward": 0.1}])
    # what transformers writes into checkpoint-2/trainer_state.json, and reads back on resume
    TrainerState(global_step=2, stateful_callbacks=[callback, monitor]).save_to_json(
        str(tmp_path / "trainer_state.json")
    )
    saved = TrainerState.load_from_json(str(tmp_path / "trainer_state.json")).stateful_callbacks
    run.step({"reward": 0.1})  # step 3 happens, then the run is killed: the resume replays it
    assert [e["step"] for e in callback.events] == [2, 3]

    # GRPO/RLOO: transformers rebuilds the callback from its args and sets the attributes
    rebuilt = AdaptiveLR(**saved["AdaptiveLR"]["args"])
    for name, value in saved["AdaptiveLR"]["attributes"].items():
        setattr(rebuilt, name, value)
    # PPO: codegym restores in place from the checkpoint
    in_place = [
        AdaptiveLR(AdaptiveLRConfig(patience=1, warmup=0), events),
        StabilityMonitor(StabilityConfig()),
    ]
    restore_callback_states(in_place, tmp_path)
    for restored in (rebuilt, in_place[0]):
        assert restored.config == callback.config and restored.scale == 0.5 and restored.seen == 2
        assert [e["step"] for e in restored.events] == [2]
    assert in_place[1].hack_streak == 1 and [e["step"] for e in in_place[1].alarms] == [1]

    # the events file becomes the checkpoint's timeline again, then the replayed step is recorded once
    resumed = Run([rebuilt], plain_args)
    assert [json.loads(line)["step"] for line in events.read_text().splitlines()] == [2]
    resumed.state.global_step = 2
    resumed.step({"reward": 0.1})
    assert [json.loads(line)["step"] for line in events.read_text().splitlines()] == [2, 3]
    assert rebuilt.scale == 0.25


def test_a_checkpoint_from_before_the_collapse_rule_changed_still_resumes() -> None:
    old_args = {"config": {"patience": 3, "variance_floor": 1e-4}, "events_path": ""}
    assert AdaptiveLR(**old_args).config == AdaptiveLRConfig(patience=3)


def test_only_the_main_process_writes_files(tmp_path: Path, plain_args: TrainingArguments) -> None:
    callback = AdaptiveLR(AdaptiveLRConfig(patience=1, warmup=0), tmp_path / "lr.jsonl")
    Run([callback], plain_args, main_process=False).steps(rewards([0.0] * 3))
    assert len(callback.events) == 2 and not (tmp_path / "lr.jsonl").exists()


def test_entropy_is_compared_per_token(tmp_path: Path, plain_args: TrainingArguments) -> None:
    monitor = StabilityMonitor(StabilityConfig(entropy_alarm=0.05))
    run = Run([monitor], plain_args)
    run.step({"entropy": 0.01})  # GRPO/RLOO: already per token
    # PPO: 3 nats summed over 100-token responses is 0.03 per token (the sum alone never alarms)
    run.step({"objective/entropy": 3.0, "codegym/response_tokens": 100.0})
    run.step({"objective/entropy": 3.0, "policy/entropy_avg": 0.02})  # no length: PPO's per-token average
    run.step({"objective/entropy": 3.0, "policy/entropy_avg": 1.2})
    assert [e["step"] for e in monitor.alarms] == [1, 2, 3]
    assert "0.0300 per token (objective/entropy / codegym/response_tokens)" in monitor.alarms[1]["alarm"]


def test_kl_is_compared_per_token_and_labelled_when_it_cannot_be(plain_args: TrainingArguments) -> None:
    monitor = StabilityMonitor(StabilityConfig(kl_alarm=0.1, entropy_alarm=0.0))
    run = Run([monitor], plain_args)  # TrainingArguments has no beta (as PPO's config): the alarm is on
    run.step({"objective/kl": 5.0, "codegym/response_tokens": 100.0})  # 0.05 per token: fine
    run.step({"objective/kl": 5.0})
    assert [e["step"] for e in monitor.alarms] == [2]
    assert "KL 5.0000 per sequence (objective/kl)" in monitor.alarms[0]["alarm"]


def test_the_kl_alarm_is_off_with_a_notice_when_beta_is_zero(tmp_path: Path) -> None:
    off = StabilityMonitor(StabilityConfig(kl_alarm=0.1), tmp_path / "alarms.jsonl")
    run = Run([off], GRPOConfig(output_dir=str(tmp_path), beta=0.0, report_to=[], use_cpu=True))
    run.step({"kl": 3.0, "entropy": 1.0})
    assert len(off.alarms) == 1 and off.alarms[0]["notice"].startswith("KL alarm off: trl.beta is 0")
    assert "notice" in (tmp_path / "alarms.jsonl").read_text()
    on = StabilityMonitor(StabilityConfig(kl_alarm=0.1))
    run = Run([on], RLOOConfig(output_dir=str(tmp_path), report_to=[], use_cpu=True))  # beta 0.05
    run.step({"kl": 3.0, "entropy": 1.0})
    assert [list(e) for e in on.alarms] == [["step", "alarm"]]


def test_alarms_and_the_hack_rate_stop(tmp_path: Path, plain_args: TrainingArguments) -> None:
    monitor = StabilityMonitor(
        StabilityConfig(kl_alarm=1.0, entropy_alarm=0.5, hack_rate_stop=0.3, hack_patience=2),
        tmp_path / "alarms.jsonl",
    )
    run = Run([monitor], plain_args)
    run.step({"kl": 2.0, "entropy": 0.1})
    assert len(monitor.alarms) == 2 and not run.control.should_training_stop
    run.step({"codegym/hack_rate": 0.6})
    with pytest.raises(TrainingHalted, match="reward hacking: hacking detectors fired on 70%"):
        run.step({"codegym/hack_rate": 0.7})
    assert "stop" in (tmp_path / "alarms.jsonl").read_text()


@pytest.mark.parametrize(
    ("section", "field"),
    [
        ({"adaptive_lr": {"warmup": -1}}, "stability.adaptive_lr.warmup"),
        ({"adaptive_lr": {"collapse_fraction": 0}}, "stability.adaptive_lr.collapse_fraction"),
        ({"adaptive_lr": {"min_delta": -0.1}}, "stability.adaptive_lr.min_delta"),
        ({"kl_alarm": 0}, "stability.kl_alarm"),
        ({"entropy_alarm": -1}, "stability.entropy_alarm"),
        ({"hack_patience": 0}, "stability.hack_patience"),
    ],
)
def test_invalid_stability_settings_name_the_field(section: dict[str, Any], field: str) -> None:
    with pytest.raises(ConfigError, match=field.replace(".", r"\.")):
        config_from_dict({"stability": section}, source="train.yaml")


def tensorboard_scalars(run_dir: Path, tag: str) -> dict[int, float]:
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    values: dict[int, float] = {}
    for path in run_dir.rglob("events.out.tfevents*"):
        accumulator = EventAccumulator(str(path))
        accumulator.Reload()
        if tag in accumulator.Tags()["scalars"]:
            values.update({event.step: event.value for event in accumulator.Scalars(tag)})
    return values


def test_grpo_logs_lr_scale_to_tensorboard_and_a_resume_keeps_the_events(
    tiny_model_path: str, tmp_path: Path
) -> None:
    # min_delta out of reach, no warm-up, patience 1: the rate halves at every log from the second
    stability = {"adaptive_lr": {"patience": 1, "warmup": 0, "min_delta": 100.0}}
    trl = {"max_steps": 3, "save_steps": 2, "report_to": ["tensorboard"]}
    notes: list[str] = []
    first = run_training(
        small_config(tiny_model_path, tmp_path, stability=stability, trl=trl), log=notes.append
    )
    assert first.status == "completed"
    assert [(e["step"], e["lr_scale"]) for e in first.metrics["adaptive_lr_events"]] == [(2, 0.5), (3, 0.25)]
    # the scale in effect for each step, in the trainer's own log and in TensorBoard
    history = json.loads((tmp_path / "checkpoint-3" / "trainer_state.json").read_text())["log_history"]
    assert [entry.get(LR_SCALE_KEY) for entry in history if "reward" in entry] == [1.0, 1.0, 0.5]
    # the optimizer ran step 3 at half the linear schedule's rate (0.01 * 1/3)
    assert [entry["learning_rate"] for entry in history if "reward" in entry][2] == pytest.approx(0.01 / 6)
    assert tensorboard_scalars(tmp_path, f"train/{LR_SCALE_KEY}") == {1: 1.0, 2: 1.0, 3: 0.5}
    # GRPO's default beta is 0: no reference model, no KL logged, and the run says so
    assert any(note.startswith("KL alarm off") for note in notes)
    assert [e.get("notice", "")[:12] for e in first.metrics["alarms"]] == ["KL alarm off"]

    # killed after step 3 was logged but before checkpoint-3 was written; resume from checkpoint-2
    shutil.rmtree(tmp_path / "checkpoint-3")
    resumed = run_training(
        small_config(tiny_model_path, tmp_path, stability=stability, trl={**trl, "max_steps": 4}),
        resume=str(tmp_path / "checkpoint-2"),
        log=notes.append,
    )
    assert resumed.status == "completed" and resumed.steps == 4
    steps = [(e["step"], e["lr_scale"]) for e in resumed.metrics["adaptive_lr_events"]]
    assert steps == [(2, 0.5), (3, 0.25), (4, 0.125)]  # the first run's event kept, step 3 recorded once
    summary = json.loads((tmp_path / "summary.json").read_text())
    assert summary["metrics"]["adaptive_lr_events"] == resumed.metrics["adaptive_lr_events"]
    recorded = [json.loads(line) for line in (tmp_path / "adaptive_lr.jsonl").read_text().splitlines()]
    assert recorded == resumed.metrics["adaptive_lr_events"]
    assert len(summary["metrics"]["alarms"]) == 1  # the notice is not repeated on resume
    assert summary["metrics"][LR_SCALE_KEY] == 0.25  # in effect for step 4 (the last logged step)


def make_checkpoint(run_dir: Path, step: int, seal: bool = True) -> Path:
    directory = run_dir / f"checkpoint-{step}"
    directory.mkdir(parents=True)
    (directory / "trainer_state.json").write_text(json.dumps({"global_step": step}))
    (directory / "model.safetensors").write_bytes(b"x" * 100)
    if seal:
        seal_checkpoint(directory, step)
    return directory


def test_only_sealed_and_intact_checkpoints_count(tmp_path: Path) -> None:
    make_checkpoint(tmp_path, 2)
    four = make_checkpoint(tmp_path, 4)
    make_checkpoint(tmp_path, 6, seal=False)  # the run died while writing it
    assert newest_valid_checkpoint(tmp_path) == four
    (four / "model.safetensors").write_bytes(b"x" * 10)  # torn after sealing
    assert not is_valid_checkpoint(four)
    assert newest_valid_checkpoint(tmp_path) == tmp_path / "checkpoint-2"
    assert resolve_resume("auto", tmp_path) == tmp_path / "checkpoint-2"
    assert resolve_resume(None, tmp_path) is None
    with pytest.raises(ValueError, match="not a complete checkpoint"):
        resolve_resume(str(tmp_path / "checkpoint-6"), tmp_path)
