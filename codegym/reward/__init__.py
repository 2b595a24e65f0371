"""codegym.reward: from an execution to the reward that trains the model.

Components (tests, coverage, style, complexity, efficiency), weights and gates, hacking detectors,
the result cache, and reward functions with TRL's signature. It starts no processes of its own
beyond one ruff per batch; programs only ever run in the sandbox.
"""

from __future__ import annotations

import importlib
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from codegym.reward.breakdown import RewardBreakdown
    from codegym.reward.config import COMPONENTS, RewardConfig, RewardConfigError, RewardWeights
    from codegym.reward.scoring import RewardJudge, ScoredSample
    from codegym.reward.trl_rewards import TrlRewards

# Loaded on first use: a module of this package (e.g. the judging session, which `judge --no-reward`
# also opens) must not pull in scoring, radon, ruff's runner and TRL's glue with it.
_EXPORTS = {
    "COMPONENTS": "config",
    "RewardBreakdown": "breakdown",
    "RewardConfig": "config",
    "RewardConfigError": "config",
    "RewardJudge": "scoring",
    "RewardWeights": "config",
    "ScoredSample": "scoring",
    "TrlRewards": "trl_rewards",
}


def __getattr__(name: str) -> Any:
    module = _EXPORTS.get(name)
    if module is None:
        raise AttributeError(f"module 'codegym.reward' has no attribute {name!r}")
    return getattr(importlib.import_module(f"codegym.reward.{module}"), name)


__all__ = [
    "COMPONENTS",
    "RewardBreakdown",
    "RewardConfig",
    "RewardConfigError",
    "RewardJudge",
    "RewardWeights",
    "ScoredSample",
    "TrlRewards",
]
