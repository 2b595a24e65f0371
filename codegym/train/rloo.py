"""RLOO on the execution reward (TRL's RLOOTrainer)."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from codegym.train.config import validate_options
from codegym.train.model_setup import load_policy, lora_config
from codegym.train.setup import RunSetup, trl_arguments


@dataclass(frozen=True)
class RLOOOptions:
    reward_layout: Literal["joint", "components"] = field(
        default="joint", metadata={"help": "As for GRPO: joint total, or weighted per-component functions."}
    )


def build_rloo_trainer(setup: RunSetup) -> Any:
    from transformers import AutoTokenizer
    from trl import RLOOConfig, RLOOTrainer

    options: RLOOOptions = validate_options(RLOOOptions, setup.config.rloo, f"{setup.config.source}.rloo")
    rewards = setup.rewards
    args = trl_arguments(setup, RLOOConfig, {"reward_weights": rewards.weights(options.reward_layout)})
    tokenizer = AutoTokenizer.from_pretrained(setup.model_path)
    tokenizer.padding_side = "left"
    return RLOOTrainer(
        model=load_policy(setup.model_path, setup.config.model),
        reward_funcs=rewards.functions(options.reward_layout),
        args=args,
        train_dataset=setup.data.dataset(),
        processing_class=tokenizer,
        callbacks=setup.callbacks,
        peft_config=lora_config(setup.config.model),
    )
