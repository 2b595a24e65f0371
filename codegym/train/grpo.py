"""GRPO on the execution reward (TRL's GRPOTrainer), with optional multi-turn self-correction."""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal

from codegym.train.config import validate_options
from codegym.train.model_setup import load_policy, lora_config
from codegym.train.multiturn import FeedbackRollout
from codegym.train.setup import RunSetup, trl_arguments


@dataclass(frozen=True)
class GRPOOptions:
    reward_layout: Literal["joint", "components"] = field(
        default="joint",
        metadata={
            "help": "joint: train on the gated total, log components at weight 0; components: "
            "one weighted function per component (same total)."
        },
    )
    async_rewards: bool = field(
        default=False, metadata={"help": "Async reward functions (judging overlaps other async work)."}
    )


def build_grpo_trainer(setup: RunSetup) -> Any:
    from transformers import AutoTokenizer
    from trl import GRPOConfig, GRPOTrainer

    options: GRPOOptions = validate_options(GRPOOptions, setup.config.grpo, f"{setup.config.source}.grpo")
    rewards = setup.rewards
    functions = (rewards.async_functions if options.async_rewards else rewards.functions)(
        options.reward_layout
    )
    args = trl_arguments(setup, GRPOConfig, {"reward_weights": rewards.weights(options.reward_layout)})
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
