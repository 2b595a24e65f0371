"""One self-contained GPU check (offline, no downloads, a few minutes on one GPU): a few GRPO, PPO and
GRPO-with-LoRA steps on a ~0.5B-parameter Qwen2-shaped model built from a config, judged by the local
sandbox. The model is saved as a bf16 checkpoint and loaded the way users' checkpoints are (a config
file naming it, `model.dtype: bfloat16`, `trl.bf16: true`); at lr 1e-6 the check fails unless most
projection weights of the exported model moved (trained as pure bf16, only a few percent did).
Prints, per run, the step-time split (generate / judge / update), tokens/s, peak GPU memory and the
share of projection weights that changed.

    scripts/gpu_check.sh                 # on a GPU machine (see the script for the wheels it needs)
    .venv/bin/python benchmarks/gpu_check.py --shape tiny   # the same code path on a CPU
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

import yaml

SHAPES = {
    # Qwen2.5-0.5B's shape: 24 layers, 896 wide, 14 heads (2 KV), 4864 MLP, 151936-row embeddings
    "0.5b": {
        "vocab_size": 8192,
        "hidden_size": 896,
        "layers": 24,
        "heads": 14,
        "kv_heads": 2,
        "intermediate_size": 4864,
        "pad_vocab_to": 151936,
    },
    "tiny": {
        "vocab_size": 1024,
        "hidden_size": 64,
        "layers": 2,
        "heads": 4,
        "kv_heads": 2,
        "intermediate_size": 128,
    },
}


# below this share of changed weights the run trained as if in pure bf16
MIN_CHANGED = 0.5

PLANS: dict[str, dict[str, Any]] = {
    "grpo": {
        "algorithm": "grpo",
        "trl": {"num_generations": 8, "max_completion_length": 128, "temperature": 1.0, "beta": 0.04},
    },
    "ppo": {
        "algorithm": "ppo",
        "trl": {
            "response_length": 128,
            "num_ppo_epochs": 1,
            "num_mini_batches": 1,
            "local_rollout_forward_batch_size": 16,
        },
    },
    "grpo-lora": {
        "algorithm": "grpo",
        "lora": {"r": 16, "alpha": 32, "target_modules": "all-linear"},
        "trl": {"num_generations": 8, "max_completion_length": 128, "temperature": 1.0, "beta": 0.04},
    },
}


def save_bf16_checkpoint(source: Path, target: Path) -> Path:
    """A bf16 copy of `source`, as checkpoints on a model hub usually are."""
    import torch
    from transformers import AutoModelForCausalLM, AutoTokenizer

    AutoModelForCausalLM.from_pretrained(source, dtype=torch.bfloat16).save_pretrained(target)
    AutoTokenizer.from_pretrained(source).save_pretrained(target)
    return target


def changed_share(before: Path, after: Path) -> float:
    """Share of the decoder's projection weights (elements) that differ between two checkpoints: the
    weights full fine-tuning and LoRA (`all-linear`, merged) both update. Embedding rows of tokens
    never sampled get no gradient, so they are left out."""
    import torch
    from transformers import AutoModelForCausalLM

    old = AutoModelForCausalLM.from_pretrained(before, dtype=torch.float32).state_dict()
    new = AutoModelForCausalLM.from_pretrained(after, dtype=torch.float32).state_dict()
    names = [name for name in old if ".layers." in name and name.endswith("proj.weight")]
    changed = sum(int((old[name] != new[name]).sum()) for name in names)
    return changed / sum(old[name].numel() for name in names)


def write_config(path: Path, model_dir: Path, plan: dict[str, Any], out: Path, steps: int) -> Path:
    """The run's config file, as a user writes it: a bf16 checkpoint, bf16 autocast, lr 1e-6."""
    model: dict[str, Any] = {"name_or_path": str(model_dir), "dtype": "bfloat16"}
    if "lora" in plan:
        model["lora"] = plan["lora"]
    trl = {
        "max_steps": steps,
        "learning_rate": 1e-6,
        "per_device_train_batch_size": 16,
        "logging_steps": 1,
        "save_steps": 1000,
        "report_to": [],
        "bf16": True,  # autocast; on a CPU (--shape tiny) too, so both run the same path
        "seed": 0,
        **plan["trl"],
    }
    config = {
        "algorithm": plan["algorithm"],
        "model": model,
        "data": {
            "packs": ["easy", "basics"],
            "prompt": {"style": "completion", "include_visible_tests": False},
        },
        # ungated, so that even a random model's completions differ in reward and the policy gradient
        # is not zero (gated, every score is 0 and only KL noise would move the weights)
        "reward": {"timing_repeats": 2, "quality_gate": "none"},
        "output": {"dir": str(out), "cache": "memory", "plot": False},
        "trl": trl,
    }
    path.write_text(yaml.safe_dump(config, sort_keys=False))
    return path


def main() -> None:
    import torch

    from codegym.tasks.registry import TaskRegistry
    from codegym.train.config import load_train_config
    from codegym.train.run import run_training
    from codegym.train.tiny import TinyModelSpec, build_tiny_model, task_corpus

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shape", choices=sorted(SHAPES), default="0.5b")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--plans", nargs="+", choices=sorted(PLANS), default=list(PLANS))
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    cuda = torch.cuda.is_available()
    out = args.out or Path(tempfile.mkdtemp(prefix="codegym-gpu-check-"))
    registry = TaskRegistry()
    started = time.monotonic()
    built = build_tiny_model(
        out / "model-fp32",
        task_corpus([registry.load("basics"), registry.load("easy")]),
        TinyModelSpec(**SHAPES[args.shape]),
    )
    model_dir = save_bf16_checkpoint(built, out / "model-bf16")
    parameters = sum(
        p.numel()
        for p in __import__("transformers").AutoModelForCausalLM.from_pretrained(model_dir).parameters()
    )
    print(
        f"device: {torch.cuda.get_device_name(0) if cuda else 'cpu'}; "
        f"model: {parameters / 1e6:.0f}M parameters, saved in bf16 "
        f"(built in {time.monotonic() - started:.0f}s)"
    )
    report = {}
    for name in args.plans:
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        run_dir = out / name  # a new run needs an empty run directory: the config is written beside it
        config = load_train_config(
            write_config(out / f"{name}.yaml", model_dir, PLANS[name], run_dir, args.steps)
        )
        result = run_training(config, log=lambda message: None)
        timing = result.metrics["timing"]
        tokens = result.metrics.get("num_tokens") or 0
        report[name] = {
            "status": result.status,
            "steps": result.steps,
            **timing,
            "tokens_per_s": round(tokens / timing["step_s"], 1) if tokens and timing["step_s"] else None,
            "peak_gpu_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if cuda else None,
            "weights_changed": changed_share(model_dir, run_dir / "final-model"),
        }
    print(
        f"{'run':10} {'steps':>5} {'step s':>8} {'generate':>9} {'judge':>8} {'update':>8} "
        f"{'tokens/s':>9} {'peak GiB':>9} {'changed':>8}"
    )
    for name, row in report.items():
        rate = f"{row['tokens_per_s']:9.0f}" if row["tokens_per_s"] else f"{'n/a':>9}"
        peak = f"{row['peak_gpu_gib']:9.2f}" if row["peak_gpu_gib"] is not None else f"{'n/a':>9}"
        print(
            f"{name:10} {row['steps']:>5} {row['step_s']:8.1f} {row['generate_s']:9.1f} "
            f"{row['judge_s']:8.1f} {row['update_s']:8.1f} {rate} {peak} {row['weights_changed']:8.1%}"
        )
    (out / "gpu_check.json").write_text(json.dumps(report, indent=2))
    print(f"total {time.monotonic() - started:.0f}s; details in {out / 'gpu_check.json'}")
    stuck = [name for name, row in report.items() if row["weights_changed"] < MIN_CHANGED]
    if stuck:
        sys.exit(
            f"FAIL: under {MIN_CHANGED:.0%} of the projection weights changed in {', '.join(stuck)} "
            "(trained as pure bf16, without fp32 master weights?)"
        )
    print(f"ok: every run changed at least {MIN_CHANGED:.0%} of the projection weights")


if __name__ == "__main__":
    main()
