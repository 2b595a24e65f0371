"""The policy to start from: a hub id or local path, or `tiny` (built offline from the task corpus),
optionally warmed up with a few supervised steps on the tasks' reference solutions."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from codegym.train.config import ModelConfig
from codegym.train.data import TrainingData
from codegym.train.tiny import build_tiny_model, task_corpus


def torch_dtype(name: str) -> Any:
    import torch

    if name == "auto":
        if torch.cuda.is_available() and torch.cuda.is_bf16_supported():
            return torch.bfloat16
        return torch.float32
    return getattr(torch, name)


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


def sft_warmup(model_path: str, data: TrainingData, config: ModelConfig, run_dir: Path, seed: int) -> str:
    """A few supervised steps on the reference solutions (TRL's SFTTrainer); returns the new path."""
    target = run_dir / "sft-model"
    marker = target / "codegym_sft.json"
    if marker.exists():
        return str(target)
    import torch
    from datasets import Dataset
    from transformers import AutoModelForCausalLM, AutoTokenizer
    from trl import SFTConfig, SFTTrainer

    tokenizer = AutoTokenizer.from_pretrained(model_path)
    model = AutoModelForCausalLM.from_pretrained(model_path, dtype=torch_dtype(config.dtype))
    args = SFTConfig(
        output_dir=str(run_dir / "sft-work"),
        max_steps=config.sft_warmup_steps,
        learning_rate=config.sft_learning_rate,
        per_device_train_batch_size=8,
        logging_steps=max(1, config.sft_warmup_steps // 5),
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
    )
    result = trainer.train()  # under accelerate, one job shared by every process (DDP)
    trainer.save_model(str(target))
    if trainer.is_world_process_zero():
        tokenizer.save_pretrained(str(target))
        marker.write_text(json.dumps({"steps": config.sft_warmup_steps, "loss": result.training_loss}))
    trainer.accelerator.wait_for_everyone()  # nobody loads the SFT model before it is complete
    return str(target)
