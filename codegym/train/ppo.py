"""PPO on the execution reward (TRL's experimental PPOTrainer, with a value model).

TRL's PPO takes a reward *model*: it runs `getattr(rm, rm.base_model_prefix)(input_ids, attention_mask,
...)` and reads `rm.score(hidden_states[-1])` at the last response token. `ExecutionRewardModel` plays
that part: its "backbone" hands the token ids through, and `score` decodes each response, judges it
in the sandbox (through TrlRewards, so caching, detectors and the sample log all apply) and returns
the joint reward. A sandbox error has no reward; TRL's PPO has no per-sample mask, so such samples get
the batch's mean reward (a neutral advantage) and are counted, never scored 0.

TRL scores an update's batch in chunks of `local_rollout_forward_batch_size`; the reward metrics are
summed over every chunk (and every process) and logged once per update.

TRL's PPO loop has no resume; `ResumablePPOTrainer.train_resumable` restores policy, value model,
optimizer, scheduler, RNG, step counters, the step budget, callback state and log history from a
codegym checkpoint and runs the remaining updates (the data order after a resume is a fresh shuffle).
"""

from __future__ import annotations

import json
import math
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from types import SimpleNamespace
from typing import Any

import torch
from torch import nn
from transformers import TrainerCallback
from transformers.trainer_callback import ExportableState

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.trl_rewards import TrlRewards, batch_rates
from codegym.train.callbacks import RESPONSE_TOKENS_KEY
from codegym.train.config import ConfigError, PPOOptions
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
SCORED_COMPONENTS = ("tests", "coverage", "style", "complexity", "efficiency")


# -- batch arithmetic --------------------------------------------------------------------------


def ppo_batch_size(args: Any, world_size: int) -> int:
    """Samples in one PPO update over all processes (TRL's `args.batch_size`)."""
    return args.per_device_train_batch_size * args.gradient_accumulation_steps * world_size


def process_count(args: Any) -> int:
    """Processes training runs on, as the trainer will see them: TrainingArguments set up accelerate's
    distributed state (CPU runs under torchrun/accelerate included) when their device is first read."""
    _ = args.device
    return args.distributed_state.num_processes if args.distributed_state is not None else 1


def ppo_arguments(setup: RunSetup, world_size: int | None = None) -> Any:
    """TRL's PPOConfig for the run. `trl.max_steps` counts PPO updates, as it does for GRPO/RLOO;
    TRL's PPO counts episodes (samples over all processes), so the budget becomes
    max_steps x one update's samples on `world_size` processes (default: the processes running)."""
    forced: dict[str, Any] = {"stop_token": "eos"}
    probe = trl_arguments(setup, forced)
    if probe.max_steps > 0 and "total_episodes" not in setup.config.trl:
        processes = world_size if world_size is not None else process_count(probe)
        forced["total_episodes"] = probe.max_steps * ppo_batch_size(probe, processes)
    return trl_arguments(setup, forced)


def check_one_batch(prompts: int, args: Any, world_size: int, source: str) -> None:
    """TRL's dataloader drops incomplete batches, so with fewer prompts than one update needs it is
    empty and TRL's loop waits for a batch forever; fail before any model loads instead."""
    needed = ppo_batch_size(args, world_size)
    if prompts < needed:
        raise ConfigError(
            f"{source}: trl.per_device_train_batch_size: one PPO update needs {needed} prompts "
            f"({args.per_device_train_batch_size} per device x {args.gradient_accumulation_steps} "
            f"gradient_accumulation_steps x {world_size} processes) but data gives {prompts}; "
            "lower trl.per_device_train_batch_size or add tasks (data.packs, data.max_tasks)"
        )


# -- the reward model ----------------------------------------------------------------------------


class _TokenPassthrough(nn.Module):
    """Stands in for a transformer: its 'hidden states' are the token ids and the attention mask."""

    def forward(self, input_ids: torch.Tensor, attention_mask: torch.Tensor, **_: Any) -> Any:
        hidden = torch.stack([input_ids.float(), attention_mask.float()], dim=-1)
        return SimpleNamespace(hidden_states=(hidden,))


def response_length(attended: torch.Tensor, prompt_length: int) -> int:
    """Response tokens as TRL's PPO counts them in its per-sequence sums (entropy, KL): from the end of
    the left-padded prompt up to the first padding position (padding fills all after the stop token)."""
    start = int(attended.int().argmax()) + prompt_length
    after = attended[start:]
    return int(after.numel()) if bool(after.all()) else int((~after).int().argmax())


def reward_sums(breakdowns: list[RewardBreakdown], scores: list[float], tokens: int = 0) -> dict[str, float]:
    """Sums and counts behind the logged reward metrics: sums add up across chunks and processes,
    means and rates would not. Keys: `count`, `joint`, `tokens` (response tokens), `rate:<metric>`,
    `sum:<component>`, `measured:<component>`."""
    count = len(breakdowns)
    sums = {"count": float(count), "joint": float(sum(scores)), "tokens": float(tokens)}
    sums.update({f"rate:{name}": rate * count for name, rate in batch_rates(breakdowns).items()})
    for name in SCORED_COMPONENTS:
        values = [b.components.get(name) for b in breakdowns if b.components.get(name) is not None]
        sums[f"sum:{name}"], sums[f"measured:{name}"] = float(sum(values)), float(len(values))
    return sums


def reward_metrics(sums: dict[str, float]) -> dict[str, float]:
    """The logged metrics from `reward_sums` (possibly added up): rates, component and joint means."""
    count = sums.get("count", 0.0)
    if not count:
        return {}
    metrics = {key[len("rate:") :]: value / count for key, value in sums.items() if key.startswith("rate:")}
    for name in SCORED_COMPONENTS:
        measured = sums[f"measured:{name}"]
        # as TRL does for reward functions that return None: a batch with no value logs NaN
        metrics[f"rewards/{name}/mean"] = sums[f"sum:{name}"] / measured if measured else math.nan
    metrics["rewards/joint/mean"] = sums["joint"] / count
    # the monitors divide PPO's per-sequence entropy and KL sums by it to compare them per token
    metrics[RESPONSE_TOKENS_KEY] = sums["tokens"] / count
    return metrics


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
        self._breakdowns: list[RewardBreakdown] = []
        self._scores: list[float] = []
        self._tokens = 0

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
            tokens = ids[row][mask[row]].tolist()
            task_id, response = self._split(tokens)
            task_ids.append(task_id)
            completions.append(self.tokenizer.decode(response, skip_special_tokens=True))
            self._tokens += response_length(mask[row], len(tokens) - len(response))
        breakdowns = self.rewards.breakdowns(completions, task_id=task_ids, trainer_state=self.trainer_state)
        valid = [b.total for b in breakdowns if b.total is not None]
        neutral = sum(valid) / len(valid) if valid else 0.0
        scores = [b.total if b.total is not None else neutral for b in breakdowns]
        self._breakdowns.extend(breakdowns)
        self._scores.extend(scores)
        values = torch.tensor(scores, dtype=torch.float32, device=hidden.device)
        return values[:, None, None].expand(hidden.shape[0], hidden.shape[1], 1)

    def take_sums(self) -> dict[str, float]:
        """`reward_sums` of everything scored since the last call (one update: all its chunks)."""
        sums = reward_sums(self._breakdowns, self._scores, self._tokens)
        self._breakdowns, self._scores, self._tokens = [], [], 0
        return sums


# -- callbacks ------------------------------------------------------------------------------------


class _ShareTrainerState(TrainerCallback):
    """Hands the trainer's state to the reward model, so samples.jsonl records the step. (TRL's PPO
    never calls `on_step_begin`; the state object it starts with is the one it advances.)"""

    def __init__(self, reward_model: ExecutionRewardModel) -> None:
        self.reward_model = reward_model

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        self.reward_model.trainer_state = state
        return control


class _ResumeOffset(TrainerCallback):
    """On resume, continue step and episode numbering where the checkpoint left off, against the
    whole run's step budget. TRL's `train()` resets the counters and sets `max_steps` to the updates
    it is asked to run; a `max_steps` below `global_step` would make every step a save step."""

    def __init__(self, steps: int, episodes: int, max_steps: int) -> None:
        self.steps, self.episodes, self.max_steps = steps, episodes, max_steps

    def on_train_begin(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        state.global_step, state.episode, state.max_steps = self.steps, self.episodes, self.max_steps
        for name in ("logging_steps", "eval_steps", "save_steps"):
            value = getattr(args, name, None)
            if value is not None and value < 1:  # a fraction of the run, as TRL computes it
                setattr(state, name, math.ceil(self.max_steps * value))
        return control


def restore_callbacks_in_place(callbacks: list[Any], saved: dict[str, Any]) -> list[str]:
    """Restores each stateful callback (by class name, in order for repeated classes) from a
    checkpoint's `stateful_callbacks` on the live instance, through its `load_state` when it has one
    (codegym's monitors), else by setting the saved attributes; returns the names restored. In place,
    unlike transformers' Trainer, which builds new instances: run.py reads the instances it made."""
    restored = []
    for name, data in saved.items():
        live = [cb for cb in callbacks if type(cb).__name__ == name and isinstance(cb, ExportableState)]
        for callback, state in zip(live, data if isinstance(data, list) else [data], strict=False):
            if callable(getattr(callback, "load_state", None)):
                callback.load_state(state)
            else:
                for attribute, value in state.get("attributes", {}).items():
                    setattr(callback, attribute, value)
            restored.append(name)
    return restored


# -- the trainer ----------------------------------------------------------------------------------


def _resumable_class() -> type:
    from trl.experimental.ppo import PPOTrainer

    class ResumablePPOTrainer(PPOTrainer):
        # TRL 1.12's PPO never runs Trainer.__init__, which sets this; transformers' save_model reads it
        is_distributed_loading_by_transformers = False

        def log(self, logs: dict[str, float], *args: Any, **kwargs: Any) -> None:
            # the execution reward's per-component means and rates, beside PPO's own metrics
            logs.update(reward_metrics(self._reward_sums()))
            super().log(logs, *args, **kwargs)

        def _reward_sums(self) -> dict[str, float]:
            """This update's reward sums over all processes. TRL calls `log` once per update on
            every process (after gathering its own metrics), so the sums can be added up here."""
            sums = self.reward_model.take_sums()
            if self.accelerator.num_processes == 1:
                return sums
            names = sorted(sums)
            device = self.accelerator.device
            totals = torch.tensor([sums[n] for n in names], dtype=torch.float64, device=device)
            totals = self.accelerator.reduce(totals, reduction="sum")
            return dict(zip(names, totals.tolist(), strict=True))

        @contextmanager
        def _unwrapped_model(self) -> Iterator[None]:
            """With several processes self.model is the DDP wrapper, which has neither the `.policy`
            TRL's save_model looks for (it would save policy and value model as one) nor the
            `.config` its model card reads; saving sees the wrapped module instead."""
            wrapped = self.model
            if not self.is_deepspeed_enabled:  # DeepSpeed saves through its engine
                self.model = self.accelerator.unwrap_model(wrapped)
            try:
                yield
            finally:
                self.model = wrapped

        def save_model(self, output_dir: str | None = None, _internal_call: bool = False) -> None:
            with self._unwrapped_model():
                super().save_model(output_dir, _internal_call)

        def _save_checkpoint(self, model: Any, trial: Any) -> None:
            with self._unwrapped_model():
                super()._save_checkpoint(model, trial)
            # TRL saves only the policy; the value model goes into the same checkpoint before the
            # callbacks' on_save, so the checkpoint's manifest covers it
            self._save_value_model(Path(self.args.output_dir) / f"checkpoint-{self.state.global_step}")

        def _save_value_model(self, directory: Path) -> None:
            state_dict = None
            if self.is_deepspeed_enabled:
                # ZeRO-3 shards the weights: every process takes part in gathering them
                full = self.accelerator.get_state_dict(self.model)
                prefix = "value_model."
                state_dict = {k[len(prefix) :]: v for k, v in full.items() if k.startswith(prefix)}
            if self.args.should_save:
                value_model = self.accelerator.unwrap_model(self.model).value_model
                value_model.save_pretrained(directory / VALUE_MODEL_DIR, state_dict=state_dict)

        def train_resumable(self, checkpoint: Path | None) -> None:
            if checkpoint is not None:
                self._restore(checkpoint)
            self.train()

        def _restore(self, checkpoint: Path) -> None:
            saved = json.loads((checkpoint / "trainer_state.json").read_text())
            done = int(saved["global_step"])
            # to CPU first: load_state_dict moves the optimizer's state to its parameters' device (and a
            # multi-process CPU run's device, cpu:<rank>, is no map_location torch.load accepts)
            self.optimizer.load_state_dict(torch.load(checkpoint / "optimizer.pt", map_location="cpu"))
            self.lr_scheduler.load_state_dict(torch.load(checkpoint / "scheduler.pt", map_location="cpu"))
            self._load_rng_state(str(checkpoint))
            restore_adapter(self.accelerator.unwrap_model(self.model).policy, checkpoint)
            if self.args.restore_callback_states_from_checkpoint:
                restore_callbacks_in_place(
                    self.callback_handler.callbacks, saved.get("stateful_callbacks", {})
                )
            # TRL's train() keeps log_history; what was logged before the checkpoint stays in it
            self.state.log_history = list(saved.get("log_history", []))
            budget = self.args.num_total_batches  # the whole run's updates, from this config
            self.args.num_total_batches = max(0, budget - done)
            episodes = int(saved.get("episode", done * self.args.batch_size))
            # first, so every other callback's on_train_begin already sees the restored counters
            self.callback_handler.callbacks.insert(0, _ResumeOffset(done, episodes, budget))

    return ResumablePPOTrainer


def build_ppo_trainer(setup: RunSetup) -> Any:
    from datasets import Dataset
    from transformers import AutoTokenizer

    source = setup.config.source or "config"
    options: PPOOptions = setup.config.ppo
    args = ppo_arguments(setup)
    check_one_batch(len(setup.data.rows), args, process_count(args), source)
    checkpoint = setup.resume_checkpoint
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
    reward_model = ExecutionRewardModel(setup.rewards, tokenizer, prompt_tasks)
    with mixed_precision_for_ppo(args):
        trainer = _resumable_class()(
            args=args,
            processing_class=tokenizer,
            model=policy,
            ref_model=reference,
            reward_model=reward_model,
            train_dataset=Dataset.from_list([{"input_ids": ids} for ids in encoded]),
            value_model=value,
            callbacks=list(setup.callbacks),
            peft_config=lora_config(setup.config.model),
        )
    trainer.add_callback(_ShareTrainerState(reward_model))
    return trainer
