"""The per-step sample table: every judged completion, appended to samples.jsonl in the run
directory (prompt, completion, status, reward breakdown, detector flags)."""

from __future__ import annotations

import json
import os
import threading
from pathlib import Path
from typing import Any

from codegym.reward.scoring import ScoredSample


class SampleLog:
    def __init__(self, path: Path, max_chars: int = 4000, process: int = 0) -> None:
        self.path = path
        self.process = process  # the training process that judged these (rank)
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
        lines = []
        for task_id, completion, sample, prompt in zip(task_ids, completions, scored, prompts, strict=False):
            breakdown = sample.breakdown
            row = {
                "step": step if step is not None else self.step,
                "process": self.process,
                "task_id": task_id,
                "prompt": prompt if isinstance(prompt, str) or prompt is None else prompt[-1].get("content"),
                "completion": completion[: self.max_chars],
                "status": breakdown.status,
                "reward": breakdown.total,
                "components": dict(breakdown.components),
                "flags": list(breakdown.flags),
                "tests": f"{breakdown.tests_passed}/{breakdown.tests_total}",
            }
            lines.append(json.dumps(row, ensure_ascii=False) + "\n")
        if not lines:
            return
        # one write on an O_APPEND descriptor: the processes of a multi-process run share this file,
        # and a buffered writer could flush half a line between another process's lines
        data = "".join(lines).encode("utf-8")
        with self._lock:
            fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o644)
            try:
                while data:
                    data = data[os.write(fd, data) :]
            finally:
                os.close(fd)
