"""Stability callbacks for TRL trainers: an adaptive learning rate driven by the reward signal,
KL/entropy alarms, and a stop when reward hacking spreads. Each records why it acted, in the run
directory and in the trainer's logs."""

from __future__ import annotations

import json
import math
from dataclasses import asdict
from pathlib import Path
from typing import Any

from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState

from codegym.train.config import AdaptiveLRConfig, StabilityConfig

REWARD_KEYS = ("reward", "objective/scores")  # GRPO/RLOO, PPO
REWARD_STD_KEYS = ("reward_std",)
KL_KEYS = ("kl", "objective/kl")
ENTROPY_KEYS = ("entropy", "objective/entropy")
HACK_KEY = "codegym/hack_rate"


class TrainingHalted(RuntimeError):
    """A guard stopped the run; the message says which and why."""


def _first(logs: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = logs.get(key)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
    return None


def _record(path: Path | None, event: dict[str, Any]) -> None:
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        with path.open("a", encoding="utf-8") as handle:
            handle.write(json.dumps(event) + "\n")


class AdaptiveLR(TrainerCallback, ExportableState):
    """Multiplies the learning rate by `factor` when the smoothed mean reward has not improved by
    `min_delta` for `patience` logged steps (plateau), or when the reward's spread within groups
    has stayed under `variance_floor` that long (collapse: advantages vanish, updates become noise).
    The reward is smoothed with an exponential moving average over about `patience` steps, so one
    lucky batch does not set a bar that noise then fails to clear. Never below `min_scale` of the
    base rate. Scales the scheduler's base rates, so the schedule's shape is kept, and survives
    resume (its state is saved with the checkpoint)."""

    def __init__(
        self, config: AdaptiveLRConfig | dict[str, Any], events_path: str | Path | None = None
    ) -> None:
        # plain values too: transformers re-creates stateful callbacks from `state()["args"]` on resume
        self.config = config if isinstance(config, AdaptiveLRConfig) else AdaptiveLRConfig(**config)
        self.events_path = Path(events_path) if events_path else None
        self.best = -math.inf
        self.smoothed: float | None = None
        self.since_best = 0
        self.low_variance = 0
        self.scale = 1.0
        self.events: list[dict[str, Any]] = []

    def observe(self, step: int, mean: float | None, std: float | None) -> str | None:
        """Update with one logged point; returns the reason when the LR should drop."""
        if mean is None:
            return None
        alpha = 2.0 / (self.config.patience + 1)
        self.smoothed = mean if self.smoothed is None else alpha * mean + (1 - alpha) * self.smoothed
        if self.smoothed > self.best + self.config.min_delta:
            self.best, self.since_best = self.smoothed, 0
        else:
            self.since_best += 1
        self.low_variance = (
            self.low_variance + 1 if std is not None and std < self.config.variance_floor else 0
        )
        reason = None
        if self.since_best >= self.config.patience:
            reason = (
                f"plateau: mean reward has not beaten {self.best:.4f} by {self.config.min_delta} "
                f"for {self.config.patience} logged steps"
            )
            self.since_best = 0
        elif self.low_variance >= self.config.patience:
            reason = (
                f"variance collapse: reward std below {self.config.variance_floor} "
                f"for {self.config.patience} logged steps"
            )
            self.low_variance = 0
        if reason is None or self.scale <= self.config.min_scale:
            return None
        return reason

    def apply(self, reason: str, step: int, optimizer: Any, scheduler: Any) -> dict[str, Any]:
        new_scale = max(self.config.min_scale, self.scale * self.config.factor)
        ratio = new_scale / self.scale
        self.scale = new_scale
        if scheduler is not None and hasattr(scheduler, "base_lrs"):
            scheduler.base_lrs = [lr * ratio for lr in scheduler.base_lrs]
        lr = None
        if optimizer is not None:
            for group in optimizer.param_groups:
                group["lr"] *= ratio
                if "initial_lr" in group:
                    group["initial_lr"] *= ratio
                lr = group["lr"]
        event = {"step": step, "reason": reason, "lr_scale": self.scale, "lr": lr}
        self.events.append(event)
        _record(self.events_path, event)
        return event

    def on_log(
        self,
        args: Any,
        state: Any,
        control: Any,
        logs: dict[str, Any] | None = None,
        optimizer: Any = None,
        lr_scheduler: Any = None,
        **kwargs: Any,
    ) -> Any:
        if not self.config.enabled or not logs:
            return control
        reason = self.observe(state.global_step, _first(logs, REWARD_KEYS), _first(logs, REWARD_STD_KEYS))
        if reason is not None:
            self.apply(reason, state.global_step, optimizer or kwargs.get("optimizer"), lr_scheduler)
        logs["codegym/lr_scale"] = self.scale
        return control

    def state(self) -> dict[str, Any]:
        return {
            "args": {"config": asdict(self.config), "events_path": str(self.events_path or "")},
            "attributes": {
                "best": self.best,
                "smoothed": self.smoothed,
                "since_best": self.since_best,
                "low_variance": self.low_variance,
                "scale": self.scale,
            },
        }


class StabilityMonitor(TrainerCallback):
    """KL and entropy alarms (optionally stopping), and a hard stop when the share of samples that
    fire a hacking detector stays above `hack_rate_stop` for `hack_patience` logs."""

    def __init__(self, config: StabilityConfig, events_path: Path | None = None) -> None:
        self.config = config
        self.events_path = events_path
        self.hack_streak = 0
        self.alarms: list[dict[str, Any]] = []

    def check(self, step: int, logs: dict[str, Any]) -> str | None:
        """Record alarms for one logged point; returns a reason when training must stop."""
        kl, entropy = _first(logs, KL_KEYS), _first(logs, ENTROPY_KEYS)
        alarms = []
        if kl is not None and kl > self.config.kl_alarm:
            alarms.append(
                f"KL {kl:.4f} above {self.config.kl_alarm}: the policy is drifting from the reference"
            )
        if entropy is not None and entropy < self.config.entropy_alarm:
            alarms.append(
                f"entropy {entropy:.4f} below {self.config.entropy_alarm}: the policy is collapsing"
            )
        for message in alarms:
            event = {"step": step, "alarm": message}
            self.alarms.append(event)
            _record(self.events_path, event)
        hack_rate = _first(logs, (HACK_KEY,))
        if hack_rate is not None:
            self.hack_streak = self.hack_streak + 1 if hack_rate > self.config.hack_rate_stop else 0
            if self.hack_streak >= self.config.hack_patience:
                reason = (
                    f"reward hacking: hacking detectors fired on {hack_rate:.0%} of samples, above "
                    f"{self.config.hack_rate_stop:.0%} for {self.hack_streak} consecutive logs"
                )
                _record(self.events_path, {"step": step, "stop": reason})
                return reason
        if alarms and self.config.stop_on_alarm:
            return "stability alarm: " + "; ".join(alarms)
        return None

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        if logs:
            reason = self.check(state.global_step, logs)
            if reason is not None:
                control.should_training_stop = True
                raise TrainingHalted(reason)
        return control
