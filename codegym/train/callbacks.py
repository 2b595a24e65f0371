"""Stability callbacks for TRL trainers: an adaptive learning rate driven by the reward signal,
KL/entropy alarms, and a stop when reward hacking spreads. Each records why it acted, in the run
directory and in the trainer's logs, and keeps its state in checkpoints so a resume continues it."""

from __future__ import annotations

import json
import math
from dataclasses import asdict, dataclass, fields
from pathlib import Path
from typing import Any

from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState

from codegym.train.checkpoints import write_atomically
from codegym.train.config import AdaptiveLRConfig, StabilityConfig

REWARD_KEYS = ("reward", "objective/scores")  # GRPO/RLOO, PPO
# GRPO/RLOO: the share of groups whose completions all got the same reward. Within-group spread is what
# the advantages are made of; the whole batch's `reward_std` stays high when every group is uniform but
# the groups differ. (With `trl.scale_rewards: batch` TRL computes it from the batch std instead.)
ZERO_STD_KEY = "frac_reward_zero_std"
# Mean completion length in tokens of the logged batch: turns PPO's per-sequence sums into per-token means.
RESPONSE_TOKENS_KEY = "codegym/response_tokens"
LR_SCALE_KEY = "codegym/lr_scale"
HACK_KEY = "codegym/hack_rate"


class TrainingHalted(RuntimeError):
    """A guard stopped the run; the message says which and why."""


@dataclass(frozen=True)
class Reading:
    """One logged quantity, with where it came from and its unit, so an alarm says what it compared."""

    value: float
    source: str
    unit: str = "per token"


def _number(logs: dict[str, Any], keys: tuple[str, ...]) -> float | None:
    for key in keys:
        value = logs.get(key)
        if isinstance(value, (int, float)) and math.isfinite(value):
            return float(value)
    return None


def _reading(logs: dict[str, Any], key: str, unit: str = "per token") -> Reading | None:
    value = _number(logs, (key,))
    return None if value is None else Reading(value, key, unit)


def _divided_by_tokens(logs: dict[str, Any], key: str) -> Reading | None:
    total, tokens = _number(logs, (key,)), _number(logs, (RESPONSE_TOKENS_KEY,))
    if total is None or tokens is None or tokens <= 0:
        return None
    # mean over sequences of per-sequence sums / mean length = the token-weighted mean per token
    return Reading(total / tokens, f"{key} / {RESPONSE_TOKENS_KEY}")


def entropy_per_token(logs: dict[str, Any]) -> Reading | None:
    """The policy's entropy per completion token. GRPO/RLOO log `entropy` per token. PPO's
    `objective/entropy` is a per-sequence sum, so it counts only divided by the mean response length
    (`codegym/response_tokens`); without that, PPO's `policy/entropy_avg` (per-token entropy over the
    update's minibatches, padding positions included) stands in. The sum is never compared as is:
    it grows with length, so a collapsing policy would never cross a per-token threshold."""
    return (
        _reading(logs, "entropy")
        or _divided_by_tokens(logs, "objective/entropy")
        or _reading(logs, "policy/entropy_avg")
    )


def kl_per_token(logs: dict[str, Any]) -> Reading | None:
    """KL to the reference per completion token (GRPO/RLOO `kl`; PPO's per-sequence `objective/kl`
    divided by the mean response length). Without a length PPO's sum is used, labelled per sequence:
    it is larger than the per-token value, so the alarm errs towards firing, never towards silence."""
    return (
        _reading(logs, "kl")
        or _divided_by_tokens(logs, "objective/kl")
        or _reading(logs, "objective/kl", "per sequence")
    )


def kl_alarm_notice(args: Any) -> str | None:
    """TRL 1.12's GRPO and RLOO load no reference model when `beta` is 0 and log no KL, so the alarm
    could never fire: say so rather than stay silent. PPO's config has no `beta` (it always keeps one)."""
    beta = getattr(args, "beta", None)
    if not isinstance(beta, (int, float)) or beta != 0:
        return None
    return (
        "KL alarm off: trl.beta is 0, so TRL loads no reference model and logs no KL "
        "(stability.kl_alarm is not checked); set trl.beta > 0 to watch the drift from the reference"
    )


class _EventLog:
    """The callback's events in memory (saved with checkpoints) and in a JSON-lines file that mirrors
    them. Only the main process writes, so W processes do not write every line W times."""

    def __init__(self, path: str | Path | None) -> None:
        self.path = Path(path) if path else None
        self.events: list[dict[str, Any]] = []
        self.writes = True

    def add(self, event: dict[str, Any]) -> None:
        self.events.append(event)
        if self.writes and self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            with self.path.open("a", encoding="utf-8") as handle:
                handle.write(json.dumps(event) + "\n")

    def start(self, is_main_process: bool) -> None:
        """At train begin: the file becomes exactly the events of the timeline being trained. After a
        resume that drops what a killed run wrote past its checkpoint (those steps run again) and
        keeps what happened before it; a fresh run into an old run directory starts an empty file."""
        self.writes = is_main_process
        if self.writes and self.path is not None:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            write_atomically(self.path, "".join(json.dumps(event) + "\n" for event in self.events))


class _Stateful(ExportableState):
    """Checkpointed through transformers' `stateful_callbacks`: `state()["args"]` rebuilds the
    callback (transformers calls `type(cb)(**args)` on resume) and the attributes are set on it."""

    ATTRIBUTES: tuple[str, ...] = ()
    event_log: _EventLog

    def _args(self) -> dict[str, Any]:
        raise NotImplementedError

    def state(self) -> dict[str, Any]:
        attributes = {name: getattr(self, name) for name in self.ATTRIBUTES}
        return {"args": self._args(), "attributes": {**attributes, "events": list(self.event_log.events)}}

    def load_state(self, saved: dict[str, Any]) -> None:
        """Restore in place (for loops that do not rebuild callbacks, e.g. codegym's PPO resume)."""
        for name, value in saved.get("attributes", {}).items():
            if name == "events" or name in self.ATTRIBUTES:
                setattr(self, name, value)

    @property
    def events(self) -> list[dict[str, Any]]:
        return self.event_log.events

    @events.setter
    def events(self, value: list[dict[str, Any]]) -> None:
        self.event_log.events = list(value)


class AdaptiveLR(_Stateful, TrainerCallback):
    """Multiplies the learning rate by `factor` when the reward stops improving (plateau) or the
    groups stop telling completions apart (variance collapse), each for `patience` logged steps.

    Plateau: the mean reward is smoothed by an exponential moving average over about `patience`
    steps (bias-corrected, so the first batch carries no extra weight), and the bar to beat is the
    best smoothed value, set only after `warmup` logged rewards: one lucky early batch cannot set a
    bar that noise then fails to clear. Collapse: TRL's `frac_reward_zero_std` (share of groups whose
    completions all scored the same, so their advantages are zero) stays at or above
    `collapse_fraction`. After a drop both rules wait `patience` steps again. Never below `min_scale`.
    Scales the scheduler's base rates, so the schedule keeps its shape; the current scale reaches the
    trainer's log (TensorBoard) as `codegym/lr_scale` through `log_callback_metrics`."""

    ATTRIBUTES = ("seen", "ema", "bar", "since_bar", "collapsed", "scale")

    def __init__(
        self, config: AdaptiveLRConfig | dict[str, Any], events_path: str | Path | None = None
    ) -> None:
        # plain values too: transformers re-creates stateful callbacks from `state()["args"]` on resume
        self.config = (
            config if isinstance(config, AdaptiveLRConfig) else _known_fields(AdaptiveLRConfig, config)
        )
        self.event_log = _EventLog(events_path)
        self.seen = 0  # logged rewards observed
        self.ema = 0.0  # exponential moving average of the mean reward, before bias correction
        self.bar: float | None = None  # best smoothed reward that counted as progress (after warm-up)
        self.since_bar = 0
        self.collapsed = 0
        self.scale = 1.0

    def _args(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "events_path": str(self.event_log.path or "")}

    def _decay(self) -> float:
        return 1 - 2.0 / (self.config.patience + 1)  # an EMA spanning about `patience` logged steps

    def observe(self, mean: float | None, zero_std_fraction: float | None) -> str | None:
        """Update with one logged point; returns the reason when the LR should drop."""
        if mean is None:  # a log without a reward (e.g. the end-of-training summary) is no observation
            return None
        self.seen += 1
        decay = self._decay()
        self.ema = decay * self.ema + (1 - decay) * mean
        if self.seen <= self.config.warmup:
            return None
        smoothed = self.ema / (1 - decay**self.seen)
        reasons = [r for r in (self._plateau(smoothed), self._collapse(zero_std_fraction)) if r]
        if not reasons:
            return None
        self.since_bar = self.collapsed = 0  # the rate changes: each rule waits `patience` logs again
        return "; ".join(reasons) if self.scale > self.config.min_scale else None

    def _plateau(self, value: float) -> str | None:
        if self.bar is None or value > self.bar + self.config.min_delta:
            self.bar, self.since_bar = value, 0
            return None
        self.since_bar += 1
        if self.since_bar < self.config.patience:
            return None
        return (
            f"plateau: the smoothed mean reward ({value:.4f}) has not beaten {self.bar:.4f} by "
            f"{self.config.min_delta} for {self.config.patience} logged steps"
        )

    def _collapse(self, zero_std_fraction: float | None) -> str | None:
        if zero_std_fraction is None or zero_std_fraction < self.config.collapse_fraction:
            self.collapsed = 0
            return None
        self.collapsed += 1
        if self.collapsed < self.config.patience:
            return None
        return (
            f"variance collapse: in {zero_std_fraction:.0%} of groups every completion got the same "
            f"reward ({ZERO_STD_KEY} >= {self.config.collapse_fraction} for {self.config.patience} "
            "logged steps), so their advantages are zero"
        )

    def apply(self, reason: str, step: int, optimizer: Any, scheduler: Any) -> dict[str, Any]:
        new_scale = max(self.config.min_scale, self.scale * self.config.factor)
        ratio = new_scale / self.scale
        self.scale = new_scale
        scheduler = getattr(scheduler, "scheduler", scheduler)  # accelerate's AcceleratedScheduler wraps it
        if scheduler is not None and hasattr(scheduler, "base_lrs"):
            scheduler.base_lrs = [lr * ratio for lr in scheduler.base_lrs]
        lr = None
        if optimizer is not None:
            for group in optimizer.param_groups:
                group["lr"] *= ratio
                if "initial_lr" in group:
                    group["initial_lr"] *= ratio
                lr = group["lr"]
            if hasattr(scheduler, "_last_lr"):
                # the trainer logs the scheduler's cached rate for the next step: make it the one applied
                scheduler._last_lr = [group["lr"] for group in optimizer.param_groups]
        event = {"step": step, "reason": reason, "lr_scale": self.scale, "lr": lr}
        self.event_log.add(event)
        return event

    def log_metrics(self) -> dict[str, float]:
        """Merged into the trainer's log before its loggers run: the scale in effect for the step
        being logged (a drop decided from this log shows from the next one)."""
        return {LR_SCALE_KEY: self.scale} if self.config.enabled else {}

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.event_log.start(state.is_world_process_zero)
        return control

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
        reason = self.observe(_number(logs, REWARD_KEYS), _number(logs, (ZERO_STD_KEY,)))
        if reason is not None:
            self.apply(reason, state.global_step, optimizer, lr_scheduler)
        return control


def _known_fields(cls: type, values: dict[str, Any]) -> Any:
    # a checkpoint written before a setting was renamed (e.g. `variance_floor`) must still resume
    names = {f.name for f in fields(cls)}
    return cls(**{key: value for key, value in values.items() if key in names})


def _stability_config(value: StabilityConfig | dict[str, Any]) -> StabilityConfig:
    if isinstance(value, StabilityConfig):
        return value
    adaptive = value.get("adaptive_lr", {})
    if isinstance(adaptive, dict):
        adaptive = _known_fields(AdaptiveLRConfig, adaptive)
    return _known_fields(StabilityConfig, {**value, "adaptive_lr": adaptive})


class StabilityMonitor(_Stateful, TrainerCallback):
    """KL and entropy alarms, both per completion token (optionally stopping), and a hard stop when the
    share of samples that fire a hacking detector stays above `hack_rate_stop` for `hack_patience`
    logs. With `trl.beta` 0 (no reference model, no KL logged) the KL alarm is off and says so."""

    ATTRIBUTES = ("hack_streak",)

    def __init__(
        self, config: StabilityConfig | dict[str, Any], events_path: str | Path | None = None
    ) -> None:
        self.config = _stability_config(config)
        self.event_log = _EventLog(events_path)
        self.hack_streak = 0
        self.kl_off: str | None = None  # why the KL alarm is off; set from the trainer's args each start

    def _args(self) -> dict[str, Any]:
        return {"config": asdict(self.config), "events_path": str(self.event_log.path or "")}

    @property
    def alarms(self) -> list[dict[str, Any]]:
        """Every recorded event: alarms, notices and a stop (what alarms.jsonl holds)."""
        return self.event_log.events

    def check(self, step: int, logs: dict[str, Any]) -> str | None:
        """Record alarms for one logged point; returns a reason when training must stop."""
        alarms = self._alarms(logs)
        for message in alarms:
            self.event_log.add({"step": step, "alarm": message})
        hack_rate = _number(logs, (HACK_KEY,))
        if hack_rate is not None:
            self.hack_streak = self.hack_streak + 1 if hack_rate > self.config.hack_rate_stop else 0
            if self.hack_streak >= self.config.hack_patience:
                reason = (
                    f"reward hacking: hacking detectors fired on {hack_rate:.0%} of samples, above "
                    f"{self.config.hack_rate_stop:.0%} for {self.hack_streak} consecutive logs"
                )
                self.event_log.add({"step": step, "stop": reason})
                return reason
        if alarms and self.config.stop_on_alarm:
            return "stability alarm: " + "; ".join(alarms)
        return None

    def _alarms(self, logs: dict[str, Any]) -> list[str]:
        alarms = []
        kl = None if self.kl_off else kl_per_token(logs)
        if kl is not None and kl.value > self.config.kl_alarm:
            alarms.append(
                f"KL {kl.value:.4f} {kl.unit} ({kl.source}) above {self.config.kl_alarm}: "
                "the policy is drifting from the reference"
            )
        entropy = entropy_per_token(logs)
        if entropy is not None and entropy.value < self.config.entropy_alarm:
            alarms.append(
                f"entropy {entropy.value:.4f} {entropy.unit} ({entropy.source}) below "
                f"{self.config.entropy_alarm}: the policy is collapsing"
            )
        return alarms

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.event_log.start(state.is_world_process_zero)
        self.kl_off = kl_alarm_notice(args)
        if self.kl_off and not any(event.get("notice") == self.kl_off for event in self.event_log.events):
            self.event_log.add({"step": state.global_step, "notice": self.kl_off})
        return control

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kwargs: Any
    ) -> Any:
        if logs:
            reason = self.check(state.global_step, logs)
            if reason is not None:
                control.should_training_stop = True
                raise TrainingHalted(reason)
        return control


def _is_step_log(logs: dict[str, Any]) -> bool:
    """A training step's log, not the end-of-training summary (logged at the last step, it would
    overwrite that step's values in TensorBoard) nor an evaluation's."""
    return "train_runtime" not in logs and not any(key.startswith("eval_") for key in logs)


def log_callback_metrics(trainer: Any) -> None:
    """Route callbacks' own metrics (`log_metrics()`) through the trainer's `log`, so TensorBoard,
    wandb and `log_history` record them. A value set in `on_log` comes too late: the reporting
    callbacks run before codegym's and `log_history` holds a copy of the dict. Callbacks are looked up
    at each log because transformers replaces stateful callbacks with rebuilt ones on resume."""
    original = trainer.log

    def log(logs: dict[str, Any], *args: Any, **kwargs: Any) -> Any:
        if _is_step_log(logs):
            for callback in trainer.callback_handler.callbacks:
                contribute = getattr(callback, "log_metrics", None)
                if callable(contribute):
                    logs.update(contribute())
        return original(logs, *args, **kwargs)

    trainer.log = log  # an instance attribute: every `self.log(...)` inside the trainer goes through it


def live_callback(trainer: Any, callback: Any) -> Any:
    """The trainer's current instance of `callback`'s class: after a resume transformers has replaced
    the one codegym created with one rebuilt from the checkpoint, and that one holds the events."""
    for candidate in trainer.callback_handler.callbacks:
        if type(candidate) is type(callback):
            return candidate
    return callback


def restore_callback_states(callbacks: list[Any], checkpoint: Path) -> None:
    """Restore codegym's stateful callbacks in place from a checkpoint's trainer_state.json, for
    training loops that do not do it themselves (TRL's PPO loop has no resume)."""
    stored = json.loads((Path(checkpoint) / "trainer_state.json").read_text(encoding="utf-8"))
    states = stored.get("stateful_callbacks") or {}
    for callback in callbacks:
        saved = states.get(type(callback).__name__)
        if isinstance(callback, _Stateful) and saved:
            callback.load_state(saved[0] if isinstance(saved, list) else saved)
