"""codegym.reward: from an execution to the reward that trains the model.

Components (tests, coverage, style, complexity, efficiency), weights and gates, hacking detectors,
the result cache, and reward functions with TRL's signature. It starts no processes of its own
beyond one ruff per batch; programs only ever run in the sandbox.
"""

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.config import COMPONENTS, RewardConfig, RewardConfigError, RewardWeights
from codegym.reward.scoring import RewardJudge, ScoredSample
from codegym.reward.trl_rewards import TrlRewards

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
