"""Where a training step's time goes: generation, judging (sandbox + reward), and the update."""

from __future__ import annotations

import time
from typing import Any

from transformers import TrainerCallback

from codegym.reward.scoring import RewardJudge


class StepProfiler(TrainerCallback):
    """Times each step and splits it into generate / judge / update. Generation is timed by wrapping
    the policy's `generate`; judging is the reward judge's own clock; the update is the rest."""

    def __init__(self, judge: RewardJudge) -> None:
        self.judge = judge
        self.generate_s = 0.0
        self.step_s = 0.0
        self.steps = 0
        self._judge_at_start = 0.0
        self._last_mark = 0.0
        self._wrapped: set[int] = set()

    def _wrap(self, model: Any) -> None:
        target = getattr(model, "policy", model)  # PPO wraps policy and value model together
        if target is None or id(target) in self._wrapped or not hasattr(target, "generate"):
            return
        original = target.generate
        profiler = self

        def timed_generate(*args: Any, **kwargs: Any) -> Any:
            started = time.perf_counter()
            try:
                return original(*args, **kwargs)
            finally:
                profiler.generate_s += time.perf_counter() - started

        target.generate = timed_generate
        self._wrapped.add(id(target))

    def on_train_begin(self, args: Any, state: Any, control: Any, model: Any = None, **kwargs: Any) -> Any:
        if model is not None:
            self._wrap(model)
        self._judge_at_start = self.judge.seconds
        self._last_mark = time.perf_counter()
        return control

    def on_step_end(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        # from one step's end to the next (PPO's loop has no on_step_begin)
        now = time.perf_counter()
        self.step_s += now - self._last_mark
        self._last_mark = now
        self.steps += 1
        return control

    def summary(self) -> dict[str, float]:
        judge_s = self.judge.seconds - self._judge_at_start
        return {
            "timed_steps": self.steps,
            "step_s": round(self.step_s, 3),
            "generate_s": round(self.generate_s, 3),
            "judge_s": round(judge_s, 3),
            "update_s": round(max(0.0, self.step_s - self.generate_s - judge_s), 3),
        }
