"""The policy to start from: a hub id or local path, or `tiny` (built offline from the task corpus),
optionally warmed up with a few supervised steps on the tasks' reference solutions; how the
trainers load it (fp32 master weights for what is trained, `model.dtype` for what is frozen), LoRA
adapters (`model.lora`), and the final export (adapters merged into a plain model)."""

from __future__ import annotations

import json
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from codegym.train.config import LORA_ALL_LINEAR, ModelConfig
from codegym.train.data import TrainingData
from codegym.train.tiny import build_tiny_model, task_corpus

ADAPTER_DIR = "final-adapter"
ADAPTER_WEIGHTS = "adapter_model.safetensors"
_MIXED_PRECISION_ENV = "ACCELERATE_MIXED_PRECISION"


def torch_dtype(name: str) -> Any:
    import torch

    if name == "auto":
        if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    return getattr(torch, name)


def policy_dtype(config: ModelConfig) -> Any:
    """Weights that are trained load in fp32 whatever the checkpoint's dtype: an optimizer step of
    lr 1e-6 is below bf16's resolution for most weights, so a bf16 policy barely moves. Mixed
    precision comes from autocast (`trl.bf16` / `trl.fp16`) or DeepSpeed's own fp32 master copy.
    With LoRA only the adapters train (PEFT makes them fp32); the frozen base loads in `model.dtype`."""
    import torch

    return torch_dtype(config.dtype) if config.lora.enabled else torch.float32


def load_policy(path: str, config: ModelConfig, checkpoint: Path | None = None) -> Any:
    """The policy from `path`, or from a PPO `checkpoint`'s full weights. With LoRA a checkpoint holds
    only the adapter: the base loads from `path` and `restore_adapter` adds the adapter once the
    trainer has wrapped the model (GRPO/RLOO resume through transformers, which does the same)."""
    from transformers import AutoModelForCausalLM

    if checkpoint is not None and not config.lora.enabled:
        path = str(checkpoint)
    return AutoModelForCausalLM.from_pretrained(path, dtype=policy_dtype(config))


def load_reference(path: str, config: ModelConfig) -> Any:
    """A frozen reference model in `model.dtype`; None with LoRA, where the trainer disables the
    adapters to get the reference (no second copy of the weights)."""
    from transformers import AutoModelForCausalLM

    if config.lora.enabled:
        return None
    return AutoModelForCausalLM.from_pretrained(path, dtype=torch_dtype(config.dtype))


def load_value_model(path: str, pad_token_id: int | None) -> Any:
    """PPO's value model: trained, so fp32 (see `policy_dtype`)."""
    import torch
    from transformers import AutoModelForSequenceClassification

    value = AutoModelForSequenceClassification.from_pretrained(path, num_labels=1, dtype=torch.float32)
    value.config.pad_token_id = pad_token_id
    return value


def lora_config(config: ModelConfig) -> Any:
    """`model.lora` as a PEFT LoraConfig for TRL's `peft_config`; None when LoRA is off."""
    if not config.lora.enabled:
        return None
    from peft import LoraConfig

    names = config.lora.target_modules
    return LoraConfig(
        r=config.lora.r,
        lora_alpha=config.lora.alpha,
        lora_dropout=config.lora.dropout,
        # PEFT reads the string "all-linear" as a keyword, a list as module names
        target_modules=LORA_ALL_LINEAR if names == (LORA_ALL_LINEAR,) else list(names),
        task_type="CAUSAL_LM",
    )


def reference_init_kwargs(config: ModelConfig, beta: float) -> dict[str, Any] | None:
    """TRL's GRPO/RLOO load their reference model themselves, from `model_init_kwargs` (default fp32).
    Only when there is a separate reference (beta != 0, no LoRA) and `model.dtype` differs."""
    import torch

    dtype = torch_dtype(config.dtype)
    if beta == 0 or config.lora.enabled or dtype == torch.float32:
        return None
    _quiet_ignored_init_kwargs_warning()
    return {"dtype": dtype}


class _DropIgnoredInitKwargsWarning(logging.Filter):
    """TRL warns that `model_init_kwargs` "will be ignored" when given a model object, yet still
    loads the reference model with them; the warning would mislead, so it is dropped."""

    def filter(self, record: logging.LogRecord) -> bool:
        return "model_init_kwargs` will be ignored" not in record.getMessage()


def _quiet_ignored_init_kwargs_warning() -> None:
    for name in ("trl.trainer.grpo_trainer", "trl.trainer.rloo_trainer"):
        logger = logging.getLogger(name)
        if not any(isinstance(f, _DropIgnoredInitKwargsWarning) for f in logger.filters):
            logger.addFilter(_DropIgnoredInitKwargsWarning())


@contextmanager
def mixed_precision_for_ppo(args: Any) -> Iterator[None]:
    """TRL's PPO builds its own Accelerator without passing `bf16`/`fp16`, so accelerate reads the
    mixed precision from the environment: it is set there while the trainer is built (and removed
    after, or it would leak into later runs in this process). A launcher's setting is kept."""
    mode = "bf16" if args.bf16 else "fp16" if args.fp16 else None
    if mode is None or _MIXED_PRECISION_ENV in os.environ:
        yield
        return
    os.environ[_MIXED_PRECISION_ENV] = mode
    try:
        yield
    finally:
        os.environ.pop(_MIXED_PRECISION_ENV, None)


def trained_policy(trainer: Any) -> Any:
    """The policy inside a trainer (PPO's wraps policy and value model together)."""
    model = trainer.accelerator.unwrap_model(trainer.model)
    return getattr(model, "policy", model)


def is_adapter_model(model: Any) -> bool:
    from accelerate.utils import is_peft_model

    return is_peft_model(model)


def export_final_model(trainer: Any, target: Path, base_path: str) -> Path:
    """Save the trained policy to `target` as a plain transformers model. With LoRA, the adapter is
    saved beside it (`final-adapter`) and merged into an fp32 copy of the base: fp32 because the
    merged update of a short run is below bf16's resolution, and the adapted model computed it apart
    from the bf16 base. Collective under DeepSpeed/FSDP (every rank calls it)."""
    if not is_adapter_model(trained_policy(trainer)):
        trainer.save_model(str(target))
        return target
    adapter = target.parent / ADAPTER_DIR
    trainer.save_model(str(adapter))  # gathers a sharded adapter; TRL/transformers write it on rank 0
    if trainer.accelerator.is_main_process:
        merge_adapter(base_path, adapter, target)
    trainer.accelerator.wait_for_everyone()
    return target


def merge_adapter(base_path: str, adapter: Path, target: Path) -> None:
    """base + adapter -> one plain fp32 model (and the tokenizer) in `target`."""
    import torch
    from peft import PeftModel
    from transformers import AutoModelForCausalLM, AutoTokenizer

    base = AutoModelForCausalLM.from_pretrained(base_path, dtype=torch.float32)
    merged = PeftModel.from_pretrained(base, str(adapter)).merge_and_unload()
    merged.save_pretrained(str(target))
    AutoTokenizer.from_pretrained(str(adapter)).save_pretrained(str(target))


def restore_adapter(model: Any, checkpoint: Path) -> None:
    """Load a checkpoint's adapter weights into a PEFT model (PPO's resume; GRPO/RLOO resume through
    transformers' Trainer, which does the same). A no-op for a model without adapters."""
    if not is_adapter_model(model):
        return
    from peft import set_peft_model_state_dict
    from safetensors.torch import load_file

    result = set_peft_model_state_dict(model, load_file(str(checkpoint / ADAPTER_WEIGHTS)))
    if result.unexpected_keys:
        raise ValueError(f"{checkpoint}: adapter does not fit the model: {result.unexpected_keys[:3]}")


def base_model_path(config: ModelConfig, run_dir: Path, packs: list[Any]) -> str:
    """The model directory or hub id to load; `tiny` is built once per run directory."""
    if config.name_or_path != "tiny":
        return config.name_or_path
    target = run_dir / "base-model"
    if not (target / "config.json").exists():
        build_tiny_model(target, task_corpus(packs), config.tiny)
    return str(target)


def sft_examples(data: TrainingData) -> list[dict[str, Any]]:
    """Prompt/completion pairs from reference solutions, in the prompts' own style."""
    examples = []
    for row in data.rows:
        task = data.tasks[row["task_id"]]
        if data.completion_format == "append":
            completion = (
                task.reference_solution[len(task.prefix) :]
                if task.reference_solution.startswith(task.prefix)
                else task.reference_solution
            )
            examples.append({"prompt": row["prompt"], "completion": completion})
        else:
            answer = [{"role": "assistant", "content": f"```python\n{task.reference_solution.rstrip()}\n```"}]
            examples.append({"prompt": row["prompt"], "completion": answer})
    return examples


def sft_warmup(
    model_path: str,
    data: TrainingData,
    config: ModelConfig,
    run_dir: Path,
    seed: int,
    callbacks: list[Any] | None = None,
) -> str:
    """A few supervised steps on the reference solutions (TRL's SFTTrainer); returns the new path.
    `callbacks` show the progress (codegym.train.progress) in place of transformers' printing."""
    target = run_dir / "sft-model"
    marker = target / "codegym_sft.json"
    if marker.exists():
        return str(target)
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tokenizer = AutoTokenizer.from_pretrained(model_path)
    # trained in full (no LoRA here: the warm-up is a few steps), so fp32 master weights
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch.float32)
    args = SFTConfig(
        output_dir=str(run_dir / "sft-work"),
        max_steps=config.sft_warmup_steps,
        learning_rate=config.sft_learning_rate,
        per_device_train_batch_size=8,
        logging_steps=max(1, config.sft_warmup_steps // 10),
        save_strategy="no",
        report_to=[],
        use_cpu=not torch.cuda.is_available(),
        seed=seed,
        completion_only_loss=True,
        lr_scheduler_type="cosine",
        warmup_steps=max(1, config.sft_warmup_steps // 10),
        disable_tqdm=True,
    )
    trainer = SFTTrainer(
        model=model,
        args=args,
        train_dataset=Dataset.from_list(sft_examples(data)),
        processing_class=tokenizer,
        callbacks=callbacks,
    )
    if callbacks:
        from codegym.train.progress import quiet_default_printers

        quiet_default_printers(trainer)
    result = trainer.train()  # under accelerate, one job shared by every process (DDP)
    trainer.save_model(str(target))
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(str(target))
        marker.write_text(json.dumps({"steps": config.sft_warmup_steps, "loss": result.training_loss}))
    trainer.accelerator.wait_for_everyone()  # nobody loads the SFT model before it is complete
    return str(target)
