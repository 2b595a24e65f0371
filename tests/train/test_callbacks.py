"""Adaptive LR on a synthetic reward stream; alarms and the hack-rate stop; checkpoint validity."""

from __future__ import annotations

import json
from pathlib import Path
from types import SimpleNamespace

import pytest
import torch
from transformers import get_linear_schedule_with_warmup

from codegym.train.callbacks import AdaptiveLR, StabilityMonitor, TrainingHalted
from codegym.train.checkpoints import (
    is_valid_checkpoint,
    newest_valid_checkpoint,
    resolve_resume,
    seal_checkpoint,
)
from codegym.train.config import AdaptiveLRConfig, StabilityConfig


def optimizer_and_scheduler(lr: float = 0.1):
    parameter = torch.nn.Parameter(torch.zeros(2))
    optimizer = torch.optim.SGD([parameter], lr=lr)
    return optimizer, get_linear_schedule_with_warmup(optimizer, 0, 1000)


def feed(callback: AdaptiveLR, stream: list[tuple[float, float]], optimizer, scheduler) -> None:
    for step, (mean, std) in enumerate(stream, start=1):
        optimizer.step()
        scheduler.step()
        callback.on_log(
            None,
            SimpleNamespace(global_step=step),
            SimpleNamespace(),
            logs={"reward": mean, "reward_std": std},
            optimizer=optimizer,
            lr_scheduler=scheduler,
        )


def test_improving_reward_keeps_the_learning_rate(tmp_path: Path) -> None:
    optimizer, scheduler = optimizer_and_scheduler()
    callback = AdaptiveLR(AdaptiveLRConfig(patience=3), tmp_path / "lr.jsonl")
    feed(callback, [(0.1 * i, 0.2) for i in range(12)], optimizer, scheduler)
    assert callback.scale == 1.0 and callback.events == []
    assert scheduler.base_lrs == [0.1]


def test_plateau_halves_the_learning_rate_and_records_why(tmp_path: Path) -> None:
    optimizer, scheduler = optimizer_and_scheduler()
    callback = AdaptiveLR(AdaptiveLRConfig(patience=3, factor=0.5, min_delta=0.01), tmp_path / "lr.jsonl")
    stream = [(0.1, 0.2), (0.3, 0.2), (0.5, 0.2)] + [(0.5, 0.2)] * 12
    feed(callback, stream, optimizer, scheduler)
    # the smoothed reward catches up with the last rise, stops improving, then every 3 flat steps
    assert [e["step"] for e in callback.events] == [11, 14]
    assert callback.scale == 0.25
    assert callback.events[0]["reason"].startswith("plateau")
    assert scheduler.base_lrs == [pytest.approx(0.025)]
    optimizer.step()
    scheduler.step()
    assert optimizer.param_groups[0]["lr"] < 0.025  # the schedule keeps its shape at the new scale
    recorded = [json.loads(line) for line in (tmp_path / "lr.jsonl").read_text().splitlines()]
    assert recorded == callback.events


def test_variance_collapse_lowers_the_rate_even_while_the_mean_rises(tmp_path: Path) -> None:
    optimizer, scheduler = optimizer_and_scheduler()
    callback = AdaptiveLR(AdaptiveLRConfig(patience=2, variance_floor=1e-3), None)
    feed(callback, [(0.1 * i, 0.0) for i in range(1, 4)], optimizer, scheduler)
    assert callback.events and callback.events[0]["reason"].startswith("variance collapse")


def test_one_lucky_batch_does_not_trigger_a_plateau() -> None:
    optimizer, scheduler = optimizer_and_scheduler()
    callback = AdaptiveLR(AdaptiveLRConfig(patience=6, min_delta=0.01), None)
    noisy_but_rising = [(0.2 + 0.03 * i + (0.3 if i == 3 else 0.0), 0.2) for i in range(20)]
    feed(callback, noisy_but_rising, optimizer, scheduler)
    assert callback.events == []


def test_the_rate_never_drops_below_min_scale() -> None:
    optimizer, scheduler = optimizer_and_scheduler()
    callback = AdaptiveLR(AdaptiveLRConfig(patience=1, factor=0.5, min_scale=0.2), None)
    feed(callback, [(0.0, 0.1)] * 30, optimizer, scheduler)
    assert callback.scale == pytest.approx(0.2)
    assert len(callback.events) == 3  # 0.5, 0.25, then clamped to 0.2


def test_state_round_trips_for_resume() -> None:
    callback = AdaptiveLR(AdaptiveLRConfig(patience=2))
    callback.scale, callback.best = 0.25, 0.7
    saved = json.loads(json.dumps(callback.state()))
    restored = AdaptiveLR(**saved["args"])
    for key, value in saved["attributes"].items():
        setattr(restored, key, value)
    assert restored.scale == 0.25 and restored.best == 0.7 and restored.config.patience == 2


def test_alarms_and_the_hack_rate_stop(tmp_path: Path) -> None:
    monitor = StabilityMonitor(
        StabilityConfig(kl_alarm=1.0, entropy_alarm=0.5, hack_rate_stop=0.3, hack_patience=2),
        tmp_path / "alarms.jsonl",
    )
    control = SimpleNamespace(should_training_stop=False)
    monitor.on_log(None, SimpleNamespace(global_step=1), control, logs={"kl": 2.0, "entropy": 0.1})
    assert len(monitor.alarms) == 2 and not control.should_training_stop
    monitor.on_log(None, SimpleNamespace(global_step=2), control, logs={"codegym/hack_rate": 0.6})
    with pytest.raises(TrainingHalted, match="reward hacking: hacking detectors fired on 70%"):
        monitor.on_log(None, SimpleNamespace(global_step=3), control, logs={"codegym/hack_rate": 0.7})
    assert control.should_training_stop
    assert "stop" in (tmp_path / "alarms.jsonl").read_text()


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
