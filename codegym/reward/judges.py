"""Choosing the reward judge for a backend: one that judges on the backend's side when the backend
offers it (the ray backend's actors time candidates next to their references on the same node; a
remote judge service judges everything itself), else the in-process RewardJudge.
`codegym.reward.session.JudgeSession` makes it together with its backend and stores."""

from __future__ import annotations

from codegym.reward.cache import ResultCache
from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.sandbox.backend import SandboxBackend


def judge_for(
    backend: SandboxBackend,
    config: RewardConfig | None = None,
    cache: ResultCache | None = None,
    yardsticks: ResultCache | None = None,
) -> RewardJudge:
    make = getattr(backend, "reward_judge", None)
    if make is not None:
        return make(config, cache, yardsticks)
    return RewardJudge(backend, config, cache, yardsticks)
