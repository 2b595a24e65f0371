"""A progress log for runs whose output is not a terminal (CI, `nohup`, `| tee`): one line when a
phase starts, one every `interval_s` while it runs, one when it ends — never minutes of silence, and
no progress-bar control characters in a log file."""

from __future__ import annotations

import time
from collections.abc import Callable
from typing import Any

from codegym.eval.runs import EvalProgress


def _duration(seconds: float) -> str:
    whole = round(seconds)
    if whole < 60:
        return f"{whole}s"
    minutes, rest = divmod(whole, 60)
    if minutes < 60:
        return f"{minutes}m{rest:02d}s"
    hours, minutes = divmod(minutes, 60)
    return f"{hours}h{minutes:02d}m"


class PeriodicLog:
    """Counts one phase at a time (generating, judging) and writes a line at most every `interval_s`."""

    def __init__(
        self,
        write: Callable[[str], None],
        *,
        interval_s: float = 30.0,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.write, self.interval_s, self.clock = write, interval_s, clock
        self.phase, self.unit, self.total, self.done = "", "", 0, 0
        self.started = self.last = 0.0

    def start(self, phase: str, unit: str, total: int) -> None:
        self.phase, self.unit, self.total, self.done = phase, unit, total, 0
        self.started = self.last = self.clock()
        self.write(f"{phase}: {total} {unit} to go" if total else f"{phase}: nothing left to do")

    def advance(self, count: int = 1) -> None:
        self.done += count
        now = self.clock()
        if self.done == self.total:
            self.write(
                f"{self.phase}: {self.done}/{self.total} {self.unit} done in {_duration(now - self.started)}"
            )
            self.last = now
        elif now - self.last >= self.interval_s:
            self.last = now
            self.write(self.line(now))

    def line(self, now: float) -> str:
        elapsed = now - self.started
        rate = self.done / elapsed if elapsed > 0 else 0.0
        left = f", about {_duration((self.total - self.done) / rate)} left" if rate > 0 else ""
        share = self.done / self.total if self.total else 1.0
        return (
            f"{self.phase}: {self.done}/{self.total} {self.unit} ({share:.0%}), {rate:.1f}/s, "
            f"{_duration(elapsed)} elapsed{left}"
        )

    def eval_hooks(self) -> EvalProgress:
        def advance(_row: dict[str, Any]) -> None:
            self.advance()

        return EvalProgress(
            on_generation_start=lambda total: self.start("generating", "samples", total),
            on_sample=advance,
            on_judge_start=lambda total: self.start("judging", "rows", total),
            on_judged=advance,
        )
