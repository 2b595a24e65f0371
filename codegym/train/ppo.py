"""PPO on the execution reward (TRL's experimental PPOTrainer, with a value model).

TRL's PPO takes a reward *model*: it runs `getattr(rm, rm.base_model_prefix)(input_ids, attention_mask,
...)` and reads `rm.score(hidden_states[-1])` at the last response token. `ExecutionRewardModel` plays
that part: its "backbone" hands the token ids through, and `score` decodes each response, judges it
in the sandbox (through TrlRewards, so caching, detectors and the sample log all apply) and returns
the joint reward. A sandbox error has no reward; TRL's PPO has no per-sample mask, so such samples get
the batch's mean reward (a neutral advantage) and are counted, never scored 0.

TRL's PPO loop has no resume; `ResumablePPOTrainer.train_resumable` restores policy, value model,
optimizer, scheduler, RNG and step counters from a codegym checkpoint and runs the remaining updates
(the data order after a resume is a fresh shuffle).
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn
from transformers import TrainerCallback

from codegym.reward.trl_rewards import TrlRewards, batch_rates
from codegym.train.config import validate_options
from codegym.train.model_setup import (
    load_policy,
    load_reference,
    load_value_model,
    lora_config,
    mixed_precision_for_ppo,
    restore_adapter,
)
from codegym.train.setup import RunSetup, trl_arguments

VALUE_MODEL_DIR = "value_model"


@dataclass(frozen=True)
class PPOOptions:
    value_model: str = field(
        default="policy",
        metadata={"help": "policy: value model initialised from the policy's weights; or a path."},
    )


class _TokenPassthrough(nn.Module):
    """Stands in for a transformer: its 'hidden states' are the token ids and the attention mask."""

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **_: Any) -> Any:
        hidden = torch.stack([input_ids.float(), attention_mask.float()], dim=-1)
        return SimpleNamespace(hidden_states=(hidden,))


class ExecutionRewardModel(nn.Module):
    base_model_prefix = "backbone"

    def __init__(self, rewards: TrlRewards, tokenizer: Any, prompt_tasks: dict[tuple[int, ...], str]) -> None:
        super().__init__()
        self.backbone = _TokenPassthrough()
        self.register_buffer("anchor", torch.zeros(1), persistent=False)  # gives the module a device
        self.rewards = rewards
        self.tokenizer = tokenizer
        self.prompt_tasks = prompt_tasks
        self.prompt_lengths = sorted({len(k) for k in prompt_tasks}, reverse=True)
        self.trainer_state: Any = None
        self.pending_metrics: dict[str, float] = {}

    def _split(self, tokens: list[int]) -> tuple[str, list[int]]:
        for length in self.prompt_lengths:
            task_id = self.prompt_tasks.get(tuple(tokens[:length]))
            if task_id is not None:
                return task_id, tokens[length:]
        raise KeyError("PPO produced a query that is not a prompt of the training dataset")

    def score(self, hidden: torch.Tensor) -> torch.Tensor:
        ids, mask = hidden[..., 0].long(), hidden[..., 1].bool()
        task_ids, completions = [], []
        for row in range(ids.shape[0]):
            task_id, response = self._split(ids[row][mask[row]].tolist())
            task_ids.append(task_id)
            completions.append(self.tokenizer.decode(response, skip_special_tokens=True))
        breakdowns = self.rewards.breakdowns(completions, task_id=task_ids, trainer_state=self.trainer_state)
        valid = [b.total for b in breakdowns if b.total is not None]
        neutral = sum(valid) / len(valid) if valid else 0.0
        scores = [b.total if b.total is not None else neutral for b in breakdowns]
        count = len(breakdowns) or 1
        self.pending_metrics = batch_rates(breakdowns)
        for name in ("tests", "coverage", "style", "complexity", "efficiency"):
            values = [b.components.get(name) for b in breakdowns if b.components.get(name) is not None]
            # as TRL does for reward functions that return None: a batch with no value logs NaN
            self.pending_metrics[f"rewards/{name}/mean"] = sum(values) / len(values) if values else math.nan
        self.pending_metrics["rewards/joint/mean"] = sum(scores) / count
        values = torch.tensor(scores, dtype=torch.float32, device=hidden.device)
        return values[:, None, None].expand(hidden.shape[0], hidden.shape[1], 1)


class _PPOBridge(TrainerCallback):
    """Tells the reward model the trainer's step, and saves the value model with each checkpoint
    (TRL's PPO saves only the policy)."""

    def __init__(self, reward_model: ExecutionRewardModel, trainer: Any) -> None:
        self.reward_model = reward_model
        self.trainer = trainer

    def on_step_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.reward_model.trainer_state = state
        return control

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        directory = Path(args.output_dir) / f"checkpoint-{state.global_step}"
        value_model = self.trainer.accelerator.unwrap_model(self.trainer.model).value_model
        value_model.save_pretrained(directory / VALUE_MODEL_DIR)
        return control


class _StepOffset(TrainerCallback):
    """On resume, continue step and episode numbering where the checkpoint left off."""

    def __init__(self, steps: int, episodes: int) -> None:
        self.steps, self.episodes = steps, episodes

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        state.global_step, state.episode = self.steps, self.episodes
        return control


def _resumable_class() -> type:
    from trl.experimental.ppo import PPOTrainer

    class ResumablePPOTrainer(PPOTrainer):
        def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
            # the execution reward's per-component means and rates, beside PPO's own metrics
            logs.update(getattr(self.reward_model, "pending_metrics", {}))
            super().log(logs, *args, **kwargs)

        def train_resumable(self, checkpoint: Path | None) -> None:
            if checkpoint is not None:
                import json

                state = json.loads((checkpoint / "trainer_state.json").read_text())
                done = int(state["global_step"])
                device = self.accelerator.device
                self.optimizer.load_state_dict(torch.load(checkpoint / "optimizer.pt", map_location=device))
                self.lr_scheduler.load_state_dict(
                    torch.load(checkpoint / "scheduler.pt", map_location=device)
                )
                self._load_rng_state(str(checkpoint))
                restore_adapter(self.accelerator.unwrap_model(self.model).policy, checkpoint)
                self.args.num_total_batches = max(0, self.args.num_total_batches - done)
                self.add_callback(_StepOffset(done, int(state.get("episode", done * self.args.batch_size))))
            self.train()

    return ResumablePPOTrainer


def build_ppo_trainer(setup: RunSetup) -> Any:
    from transformers import AutoTokenizer
    from trl.experimental.ppo import PPOConfig

    options: PPOOptions = validate_options(PPOOptions, setup.config.ppo, f"{setup.config.source}.ppo")
    if setup.data.completion_format != "append":
        raise ValueError("ppo: use data.prompt.style: completion (TRL's PPO trains on plain-text queries)")
    checkpoint = setup.resume_checkpoint
    forced: dict[str, Any] = {"stop_token": "eos"}
    probe = trl_arguments(setup, PPOConfig, forced)
    if probe.max_steps > 0 and "total_episodes" not in setup.config.trl:
        # `max_steps` means PPO updates here too; TRL's PPO counts episodes (samples)
        forced["total_episodes"] = (
            probe.max_steps * probe.per_device_train_batch_size * probe.gradient_accumulation_steps
        )
    args = trl_arguments(setup, PPOConfig, forced)
    tokenizer = AutoTokenizer.from_pretrained(setup.model_path)
    tokenizer.padding_side = "left"
    policy = load_policy(setup.model_path, setup.config.model, checkpoint)
    reference = load_reference(setup.model_path, setup.config.model)
    if checkpoint is not None and (checkpoint / VALUE_MODEL_DIR).exists():
        value_path = str(checkpoint / VALUE_MODEL_DIR)
    else:
        value_path = setup.model_path if options.value_model == "policy" else options.value_model
    value = load_value_model(value_path, tokenizer.pad_token_id)
    rows = setup.data.rows
    encoded = [tokenizer(row["prompt"], add_special_tokens=False)["input_ids"] for row in rows]
    prompt_tasks = {tuple(ids): row["task_id"] for ids, row in zip(encoded, rows, strict=True)}
    from datasets import Dataset

    dataset = Dataset.from_list([{"input_ids": ids} for ids in encoded])
    reward_model = ExecutionRewardModel(setup.rewards, tokenizer, prompt_tasks)
    with mixed_precision_for_ppo(args):
        trainer = _resumable_class()(
            args=args,
            processing_class=tokenizer,
            model=policy,
            ref_model=reference,
            reward_model=reward_model,
            train_dataset=dataset,
            value_model=value,
            callbacks=list(setup.callbacks),
            peft_config=lora_config(setup.config.model),
        )
    trainer.add_callback(_PPOBridge(reward_model, trainer))
    return trainer
