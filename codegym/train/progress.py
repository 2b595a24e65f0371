"""Progress of a training phase (the SFT warm-up, then RL), shown one of two ways:

- on a terminal, `ProgressPanel`: a bar and the headline metrics in a panel that fits the terminal
  (24 lines included), instead of TRL's panel of every logged key, taller than a small terminal;
- elsewhere (a log file, CI, nohup), `ProgressLines`: one line every ~10% of the steps, instead of
  transformers' dict of every logged key at every step.

Every logged value still reaches TensorBoard, `log_history` and the checkpoints.
"""

from __future__ import annotations

import math
import sys
import time
from collections.abc import Callable
from typing import Any

from transformers import TrainerCallback

# (label, the log keys that hold it, best first): GRPO/RLOO, PPO and SFT name some things differently
HEADLINE: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("reward", ("rewards/joint/mean", "reward", "objective/scores")),
    ("pass rate", ("codegym/pass_rate",)),
    ("tests passed", ("codegym/tests_passed_fraction",)),
    ("hack rate", ("codegym/hack_rate",)),
    ("loss", ("loss", "train_loss", "policy/policy_loss_avg")),
    ("token accuracy", ("mean_token_accuracy",)),
    ("kl", ("kl", "objective/kl")),
    ("entropy", ("entropy", "objective/entropy")),
    ("learning rate", ("learning_rate", "lr")),
    ("lr scale", ("codegym/lr_scale",)),
    ("length", ("completions/mean_length", "codegym/response_tokens")),
    ("zero-std groups", ("frac_reward_zero_std",)),
    ("sandbox errors", ("codegym/sandbox_error_rate",)),
    ("grad norm", ("grad_norm",)),
    ("step time", ("step_time",)),
)


def headline_metrics(logs: dict[str, Any], limit: int | None = None) -> list[tuple[str, float]]:
    """The metrics worth a glance, in a fixed order, then each reward component's mean."""
    picked: list[tuple[str, float]] = []
    for label, keys in HEADLINE:
        for key in keys:
            value = logs.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool) and math.isfinite(value):
                picked.append((label, float(value)))
                break
    for key, value in logs.items():
        component = key.startswith("rewards/") and key.endswith("/mean") and key != "rewards/joint/mean"
        if component and isinstance(value, (int, float)) and math.isfinite(value):
            picked.append((key[len("rewards/") : -len("/mean")], float(value)))
    return picked[:limit] if limit is not None else picked


def _number(value: float) -> str:
    return (
        f"{value:.3g}" if abs(value) < 1e-3 or abs(value) >= 1e4 else f"{value:.4f}".rstrip("0").rstrip(".")
    )


class ProgressLines(TrainerCallback):
    """One line per ~`every` steps: `SFT warm-up: step 18/90 (20%), loss 2.31, ..., 0.42 s/step`."""

    def __init__(self, label: str, log: Callable[[str], None], *, lines: int = 10, metrics: int = 5) -> None:
        self.label = label
        self.log = log
        self.lines = lines
        self.metrics = metrics
        self._every = 1
        self._logs: dict[str, Any] = {}
        self._due: int | None = None
        self._started = 0.0
        self._first_step = 0

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        self._every = max(1, math.ceil((state.max_steps or 1) / self.lines))
        self._started = time.monotonic()
        self._first_step = state.global_step  # a resumed run counts its speed from here

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if state.global_step % self._every == 0 or state.global_step >= state.max_steps:
            self._due = state.global_step  # said once the step's metrics are logged

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kw: Any
    ) -> None:
        self._logs.update(logs or {})
        if self._due is not None:
            self._say(state)

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._due is not None:
            self._say(state)

    def _say(self, state: Any) -> None:
        self._due = None
        if not state.is_world_process_zero:
            return
        step, total = state.global_step, state.max_steps or 0
        parts = [f"{self.label}: step {step}/{total}" + (f" ({100 * step // total}%)" if total else "")]
        parts += [f"{label} {_number(value)}" for label, value in headline_metrics(self._logs, self.metrics)]
        done = step - self._first_step
        if done > 0:
            parts.append(f"{(time.monotonic() - self._started) / done:.2f} s/step")
        self.log(", ".join(parts))


class ProgressPanel(TrainerCallback):
    """A bar and the headline metrics in a panel no taller than the terminal allows."""

    RESERVED_LINES = 6  # the panel's border and bar, and room for the lines printed above it

    def __init__(self, label: str, console: Any = None) -> None:
        self.label = label
        self.console = console
        self._logs: dict[str, Any] = {}
        self._live: Any = None
        self._progress: Any = None
        self._task: Any = None
        self._step = 0
        self._total = 0

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if not state.is_world_process_zero:
            return
        from rich.console import Console
        from rich.live import Live
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

        self.console = self.console or Console()
        self._progress = Progress(
            TextColumn("{task.description}"),
            BarColumn(),
            MofNCompleteColumn(),
            TimeRemainingColumn(),
            console=self.console,
        )
        self._total = state.max_steps or 0
        self._step = state.global_step
        self._task = self._progress.add_task(self.label, total=self._total or None, completed=self._step)
        self._live = Live(
            self.renderable(), console=self.console, refresh_per_second=4, vertical_overflow="crop"
        )
        self._live.start()

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._live is None:
            return
        self._step = state.global_step
        self._progress.update(self._task, completed=self._step)
        self._live.update(self.renderable())

    def on_log(
        self, args: Any, state: Any, control: Any, logs: dict[str, Any] | None = None, **kw: Any
    ) -> None:
        self._logs.update(logs or {})
        if self._live is not None:
            self._live.update(self.renderable())

    def on_train_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> None:
        if self._live is not None:
            self._live.update(self.renderable())
            self._live.stop()
            self._live = None

    def renderable(self) -> Any:
        """The panel: at most (terminal height - RESERVED_LINES) rows of metrics, as many metric
        columns as the width holds."""
        from rich.console import Group
        from rich.panel import Panel
        from rich.table import Table

        width, height = self.console.size if self.console is not None else (80, 24)
        pairs = max(1, min(3, (width - 4) // 30))  # "label  value" pairs side by side
        rows = max(1, min(8, height - self.RESERVED_LINES - 2))
        metrics = headline_metrics(self._logs, rows * pairs)
        table = Table.grid(padding=(0, 2), expand=True)
        for _ in range(pairs):
            table.add_column(style="cyan", no_wrap=True, overflow="ellipsis")
            table.add_column(justify="right", no_wrap=True)
        for start in range(0, len(metrics), pairs):
            cells: list[str] = []
            for label, value in metrics[start : start + pairs]:
                cells += [label, _number(value)]
            table.add_row(*cells)
        parts: list[Any] = [self._progress] if self._progress is not None else []
        if metrics:
            parts.append(table)
        return Panel(
            Group(*parts), title=f"{self.label}: step {self._step}/{self._total}", border_style="green"
        )


def progress_callback(
    label: str, log: Callable[[str], None], *, terminal: bool | None = None
) -> TrainerCallback:
    """The panel on a terminal, one line per ~10% of the steps elsewhere."""
    if terminal is None:
        terminal = sys.stdout.isatty()
    return ProgressPanel(label) if terminal else ProgressLines(label, log)


def quiet_default_printers(trainer: Any) -> None:
    """Drop transformers' own progress output (a dict of every key per log, or tqdm's bar and dicts):
    codegym's progress callback replaces it."""
    from transformers.trainer_callback import PrinterCallback, ProgressCallback

    for callback in (PrinterCallback, ProgressCallback):
        trainer.callback_handler.remove_callback(callback)
