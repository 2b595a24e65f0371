"""What every algorithm's trainer is built from, and the TRL arguments they share."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.reward.trl_rewards import TrlRewards
from codegym.train.config import TrainConfig, validate_trl_section
from codegym.train.data import TrainingData
from codegym.train.model_setup import reference_init_kwargs

# codegym's defaults for TRL fields; the config's `trl:` section overrides any of them
TRL_DEFAULTS: dict[str, Any] = {
    "logging_steps": 1,
    "save_steps": 10,
    "save_total_limit": 3,
    "report_to": ["tensorboard"],
    "max_grad_norm": 1.0,
    "seed": 0,
    "disable_tqdm": True,
}


@dataclass
class RunSetup:
    config: TrainConfig
    run_dir: Path
    model_path: str
    data: TrainingData
    rewards: TrlRewards
    callbacks: list[Any] = field(default_factory=list)
    resume_checkpoint: Path | None = None


def trl_arguments(setup: RunSetup, config_cls: type, forced: dict[str, Any] | None = None) -> Any:
    """TRL's config for the algorithm: codegym defaults < the config's `trl:` section < `forced`."""
    import torch

    section = dict(setup.config.trl)
    validate_trl_section(config_cls, section, setup.config.source or "config")
    values = {**TRL_DEFAULTS, **section, **(forced or {})}
    values["output_dir"] = str(setup.run_dir)
    values.setdefault("use_cpu", not torch.cuda.is_available())
    if not torch.cuda.is_available() and "bf16" not in section:
        # TRL turns bf16 autocast on by default; on a CPU it is slower, so only when asked for
        values["bf16"] = False
    values["restore_callback_states_from_checkpoint"] = True
    limit = values.get("save_total_limit")
    if limit is not None and limit < 2:
        # the newest checkpoint may be mid-write when a run dies; the one before it must still exist
        values["save_total_limit"] = 2
    args = config_cls(**values)
    if getattr(args, "model_init_kwargs", False) is None:
        # GRPO/RLOO load their reference model from these; the policy is loaded by codegym
        args.model_init_kwargs = reference_init_kwargs(setup.config.model, getattr(args, "beta", 0.0))
    return args
