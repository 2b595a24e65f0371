"""The per-step sample table: every judged completion, appended to samples.jsonl in the run
directory (prompt, completion, status, reward breakdown, detector flags)."""

from __future__ import annotations

import json
import threading
from pathlib import Path
from typing import Any

from codegym.reward.scoring import ScoredSample


class SampleLog:
    def __init__(self, path: Path, max_chars: int = 4000) -> None:
        self.path = path
        self.max_chars = max_chars
        self.step = 0
        self._lock = threading.Lock()
        path.parent.mkdir(parents=True, exist_ok=True)

    def __call__(
        self, task_ids: list[str], completions: list[str], scored: list[ScoredSample], kwargs: dict[str, Any]
    ) -> None:
        state = kwargs.get("trainer_state")
        step = getattr(state, "global_step", None)
        prompts = kwargs.get("prompts") or [None] * len(task_ids)
        with self._lock, self.path.open("a", encoding="utf-8") as handle:
            for task_id, completion, sample, prompt in zip(
                task_ids, completions, scored, prompts, strict=False
            ):
                breakdown = sample.breakdown
                handle.write(
                    json.dumps(
                        {
                            "step": step if step is not None else self.step,
                            "task_id": task_id,
                            "prompt": prompt
                            if isinstance(prompt, str) or prompt is None
                            else prompt[-1].get("content"),
                            "completion": completion[: self.max_chars],
                            "status": breakdown.status,
                            "reward": breakdown.total,
                            "components": dict(breakdown.components),
                            "flags": list(breakdown.flags),
                            "tests": f"{breakdown.tests_passed}/{breakdown.tests_total}",
                        },
                        ensure_ascii=False,
                    )
                    + "\n"
                )
