"""What every algorithm's trainer is built from, and the TRL arguments they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.reward.trl_rewards import TrlRewards
from codegym.train.config import TRL_DEFAULTS, TrainConfig, build_trl_config
from codegym.train.data import TrainingData
from codegym.train.model_setup import reference_init_kwargs

__all__ = ["TRL_DEFAULTS", "RunSetup", "trl_arguments"]


@dataclass
class RunSetup:
    config: TrainConfig
    run_dir: Path
    model_path: str
    data: TrainingData
    rewards: TrlRewards
    callbacks: list[Any] = field(default_factory=list)
    resume_checkpoint: Path | None = None


def trl_arguments(setup: RunSetup, forced: dict[str, Any] | None = None) -> Any:
    """TRL's config for the algorithm: codegym defaults < the config's `trl:` section (checked when
    the config was loaded) < `forced`."""
    args = build_trl_config(setup.config, setup.run_dir, forced)
    if getattr(args, "model_init_kwargs", False) is None:
        # GRPO/RLOO load their reference model from these; the policy is loaded by codegym
        args.model_init_kwargs = reference_init_kwargs(setup.config.model, getattr(args, "beta", 0.0))
    return args
