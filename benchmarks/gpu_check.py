"""One self-contained GPU check (offline, no downloads, a few minutes on one GPU): a few GRPO and
PPO steps on a ~0.5B-parameter Qwen2-shaped model built from a config, judged by the local sandbox.
Prints, per algorithm, the step-time split (generate / judge / update), tokens/s and peak GPU memory.

    scripts/gpu_check.sh                 # on a GPU machine (see the script for the wheels it needs)
    .venv/bin/python benchmarks/gpu_check.py --shape tiny   # the same code path on a CPU, in seconds
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

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


def main() -> None:
    import torch

    from codegym.tasks.registry import TaskRegistry
    from codegym.train.config import config_from_dict
    from codegym.train.run import run_training
    from codegym.train.tiny import TinyModelSpec, build_tiny_model, task_corpus

    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--shape", choices=sorted(SHAPES), default="0.5b")
    parser.add_argument("--steps", type=int, default=3)
    parser.add_argument("--out", type=Path, default=None)
    args = parser.parse_args()
    cuda = torch.cuda.is_available()
    out = args.out or Path(tempfile.mkdtemp(prefix="codegym-gpu-check-"))
    registry = TaskRegistry()
    started = time.monotonic()
    model_dir = build_tiny_model(
        out / "model",
        task_corpus([registry.load("basics"), registry.load("easy")]),
        TinyModelSpec(**SHAPES[args.shape]),
    )
    parameters = sum(
        p.numel()
        for p in __import__("transformers").AutoModelForCausalLM.from_pretrained(model_dir).parameters()
    )
    print(
        f"device: {torch.cuda.get_device_name(0) if cuda else 'cpu'}; "
        f"model: {parameters / 1e6:.0f}M parameters (built in {time.monotonic() - started:.0f}s)"
    )
    common = {
        "model": {"name_or_path": str(model_dir), "dtype": "bfloat16" if cuda else "float32"},
        "data": {
            "packs": ["easy", "basics"],
            "prompt": {"style": "completion", "include_visible_tests": False},
        },
        "reward": {"timing_repeats": 2},
    }
    trl_common = {
        "max_steps": args.steps,
        "learning_rate": 1e-6,
        "per_device_train_batch_size": 16,
        "logging_steps": 1,
        "save_steps": 1000,
        "report_to": [],
        "bf16": cuda,
        "seed": 0,
    }
    plans = {
        "grpo": {"num_generations": 8, "max_completion_length": 128, "temperature": 1.0, "beta": 0.0},
        "ppo": {
            "response_length": 128,
            "num_ppo_epochs": 1,
            "num_mini_batches": 1,
            "local_rollout_forward_batch_size": 16,
        },
    }
    report = {}
    for algorithm, extra in plans.items():
        if cuda:
            torch.cuda.reset_peak_memory_stats()
        config = config_from_dict(
            {
                **common,
                "algorithm": algorithm,
                "output": {"dir": str(out / algorithm), "cache": "memory", "plot": False},
                "trl": {**trl_common, **extra},
            }
        )
        result = run_training(config, log=lambda message: None)
        timing = result.metrics["timing"]
        history = json.loads((out / algorithm / "summary.json").read_text())
        tokens = history["metrics"].get("num_tokens") or 0
        report[algorithm] = {
            "status": result.status,
            "steps": result.steps,
            **timing,
            "tokens_per_s": round(tokens / timing["step_s"], 1) if tokens and timing["step_s"] else None,
            "peak_gpu_gib": round(torch.cuda.max_memory_allocated() / 2**30, 2) if cuda else None,
        }
    print(
        f"{'algorithm':10} {'steps':>5} {'step s':>8} {'generate':>9} {'judge':>8} {'update':>8} "
        f"{'tokens/s':>9} {'peak GiB':>9}"
    )
    for algorithm, row in report.items():
        rate = f"{row['tokens_per_s']:9.0f}" if row["tokens_per_s"] else f"{'n/a':>9}"
        peak = f"{row['peak_gpu_gib']:9.2f}" if row["peak_gpu_gib"] is not None else f"{'n/a':>9}"
        print(
            f"{algorithm:10} {row['steps']:>5} {row['step_s']:8.1f} {row['generate_s']:9.1f} "
            f"{row['judge_s']:8.1f} {row['update_s']:8.1f} {rate} {peak}"
        )
    (out / "gpu_check.json").write_text(json.dumps(report, indent=2))
    print(f"total {time.monotonic() - started:.0f}s; details in {out / 'gpu_check.json'}")


if __name__ == "__main__":
    main()
