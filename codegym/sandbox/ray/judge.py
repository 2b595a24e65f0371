"""Reward judging on the cluster: each sandbox actor scores programs with a RewardJudge of its own, so
a candidate's CPU time is compared with its task's reference timed on the same node (each actor
keeps its own reference yardsticks). The driver keeps the shared result cache: lookups before
dispatch, and stores exactly what the actor's judge would have stored (never sandbox errors; hack
flags only when a second judgment confirmed them)."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.cache import ResultCache, cache_key
from codegym.reward.config import COMPONENTS, RewardConfig
from codegym.reward.extract import first_generated_line
from codegym.reward.scoring import RewardJudge, ScoredSample
from codegym.sandbox.ray.backend import RayBackend
from codegym.sandbox.types import ExecResult
from codegym.tasks.model import Task


class RayRewardJudge(RewardJudge):
    def __init__(
        self,
        backend: RayBackend,
        config: RewardConfig | None = None,
        cache: ResultCache | None = None,
        yardsticks: ResultCache | None = None,
    ) -> None:
        """`yardsticks` is not used: references are timed per node, on the actors."""
        super().__init__(backend, config, cache, None)
        self.ray_backend = backend

    def _blob_key(self, task: Task) -> str:
        return hashlib.sha256(f"{task.fingerprint}\0{self.config_fingerprint}".encode()).hexdigest()

    def _score_many(self, items: Sequence[tuple[Task, str, int | None]]) -> list[ScoredSample]:
        prepared = [
            (task, code, first_line or first_generated_line(task, code)) for task, code, first_line in items
        ]
        image = self.backend.image
        keys = [
            cache_key(task.fingerprint, code, self.config_fingerprint, image) for task, code, _ in prepared
        ]
        scored: list[ScoredSample | None] = [None] * len(prepared)
        misses = []
        for index, key in enumerate(keys):
            hit = self.cache.get(key) if self.cache is not None else None
            if hit is not None:
                scored[index] = ScoredSample(hit, None)
                self._count(hit)
            else:
                misses.append(index)
        config = self.config
        work = [
            (self._blob_key(prepared[i][0]), (prepared[i][1], prepared[i][2]), _pair(prepared[i][0], config))
            for i in misses
        ]
        for index, raw in zip(misses, self.ray_backend.run_job("score", work), strict=True):
            if "error" in raw:  # every retry lost its actor: an infrastructure failure, reward None
                breakdown = RewardBreakdown(
                    total=None,
                    components=dict.fromkeys(COMPONENTS),
                    status="sandbox_error",
                    details={"message": raw["error"], "attempts": raw["attempts"]},
                )
                result = ExecResult.sandbox_error(raw["error"], backend="ray", attempts=raw["attempts"])
            else:
                breakdown = RewardBreakdown.from_dict(raw["breakdown"])
                result = ExecResult.from_dict({**raw["result"], "backend": "ray"}) if raw["result"] else None
                if self.cache is not None and raw["storable"] and breakdown.total is not None:
                    self.cache.put(keys[index], breakdown)
            self._count(breakdown)
            scored[index] = ScoredSample(breakdown, result)
        return [s for s in scored if s is not None]

    def prepare(self, tasks: Sequence[Task]) -> None:
        """Every actor judges these references now, on its own node."""
        self.ray_backend.broadcast("prepare", list(tasks), self.config)


def _pair(task: Task, config: RewardConfig):
    return lambda: (task, config)
