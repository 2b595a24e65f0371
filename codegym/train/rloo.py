"""RLOO on the execution reward (TRL's RLOOTrainer)."""

from __future__ import annotations

from typing import Any

from codegym.train.config import RLOOOptions
from codegym.train.model_setup import load_policy, lora_config
from codegym.train.setup import RunSetup, trl_arguments

__all__ = ["RLOOOptions", "build_rloo_trainer"]


def build_rloo_trainer(setup: RunSetup) -> Any:
    from transformers import AutoTokenizer
    from trl import RLOOTrainer

    options = setup.config.rloo
    rewards = setup.rewards
    args = trl_arguments(setup, {"reward_weights": rewards.weights(options.reward_layout)})
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
