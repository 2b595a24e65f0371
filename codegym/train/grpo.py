"""GRPO on the execution reward (TRL's GRPOTrainer), with optional multi-turn self-correction."""

from __future__ import annotations

from typing import Any

from codegym.train.config import GRPOOptions
from codegym.train.model_setup import load_policy, lora_config
from codegym.train.multiturn import FeedbackRollout
from codegym.train.setup import RunSetup, trl_arguments

__all__ = ["GRPOOptions", "build_grpo_trainer"]


def build_grpo_trainer(setup: RunSetup) -> Any:
    from transformers import AutoTokenizer
    from trl import GRPOTrainer

    options = setup.config.grpo
    rewards = setup.rewards
    functions = (rewards.async_functions if options.async_rewards else rewards.functions)(
        options.reward_layout
    )
    args = trl_arguments(setup, {"reward_weights": rewards.weights(options.reward_layout)})
    tokenizer = AutoTokenizer.from_pretrained(setup.model_path)
    tokenizer.padding_side = "left"
    model = load_policy(setup.model_path, setup.config.model)
    rollout = None
    if setup.config.feedback.turns > 1:
        rollout = FeedbackRollout(
            rewards,
            setup.data.tasks_by_prompt,
            tokenizer,
            setup.config.feedback,
            max_completion_length=args.max_completion_length,
        )
    return GRPOTrainer(
        model=model,
        reward_funcs=functions,
        args=args,
        train_dataset=setup.data.dataset(),
        processing_class=tokenizer,
        callbacks=setup.callbacks,
        rollout_func=rollout,
        peft_config=lora_config(setup.config.model),
    )
