"""Learning check: does RL on the execution reward improve a policy? CPU, offline, ~10-20 minutes.

A tiny Qwen2-style model (tokenizer trained on the task corpus) is briefly SFT-warmed on the `easy`
pack's reference solutions, evaluated (n samples per task at the training temperature), trained with
GRPO on the joint reward, and evaluated again the same way. Prints mean reward and pass rate before
and after, and the path of the reward-per-step plot.

    .venv/bin/python -m benchmarks.learning_check [--sft-steps 55] [--rl-steps 300] [--lr 2e-4] [--samples 8]
"""

from __future__ import annotations

import argparse
import json
import statistics
import tempfile
import time
from pathlib import Path

from codegym.reward.config import RewardConfig
from codegym.reward.extract import extract_code
from codegym.reward.scoring import RewardJudge
from codegym.rollout.generation.base import SamplingParams
from codegym.rollout.generation.hf import TransformersGenerator, TransformersSettings
from codegym.rollout.prompts import PromptBuilder, PromptConfig
from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend
from codegym.tasks.registry import TaskRegistry
from codegym.train.config import config_from_dict
from codegym.train.run import run_training

TINY = {
    "vocab_size": 1024,
    "hidden_size": 128,
    "layers": 2,
    "heads": 4,
    "kv_heads": 2,
    "intermediate_size": 256,
}


def evaluate(model_dir: str, samples: int, temperature: float, seed: int) -> dict[str, float]:
    import torch

    torch.set_num_threads(1)
    pack = TaskRegistry().load("easy")
    builder = PromptBuilder(PromptConfig(style="completion", include_visible_tests=False))
    prompts = [builder.build(task) for task in pack.tasks.values()]
    generator = TransformersGenerator(TransformersSettings(model=model_dir, device="cpu", batch_size=32))
    outputs = generator.generate(
        prompts, samples, SamplingParams(temperature=temperature, top_p=1.0, max_new_tokens=32, seed=seed)
    )
    with LocalBackend(preload=COVERAGE_PRELOAD) as backend:
        judge = RewardJudge(backend, RewardConfig(completion_format="append"))
        items = []
        for task, completions in zip(pack.tasks.values(), outputs, strict=True):
            for completion in completions:
                extracted = extract_code(task, completion, "append")
                items.append((task, extracted.code, extracted.first_generated_line))
        scored = judge.score_many(items)
    totals = [s.breakdown.total for s in scored if s.breakdown.total is not None]
    return {
        "mean_reward": statistics.fmean(totals),
        "pass_rate": sum(s.breakdown.passed for s in scored) / len(scored),
        "samples": len(scored),
    }


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--sft-steps", type=int, default=55)
    parser.add_argument("--rl-steps", type=int, default=300)
    parser.add_argument("--samples", type=int, default=8, help="samples per task for each evaluation")
    parser.add_argument("--temperature", type=float, default=1.0)
    parser.add_argument("--lr", type=float, default=2e-4, help="RL learning rate")
    parser.add_argument("--out", type=Path, default=None, help="run directory (default: a temp dir)")
    args = parser.parse_args()
    run_dir = args.out or Path(tempfile.mkdtemp(prefix="codegym-learning-check-"))
    started = time.monotonic()
    base = {
        "algorithm": "grpo",
        "model": {"name_or_path": "tiny", "tiny": TINY, "sft_warmup_steps": args.sft_steps},
        "data": {"packs": ["easy"], "prompt": {"style": "completion", "include_visible_tests": False}},
        "reward": str(Path(__file__).resolve().parents[1] / "configs" / "reward" / "default.yaml"),
        "output": {"dir": str(run_dir), "cache": "memory"},
        "stability": {"adaptive_lr": {"enabled": True, "patience": 50}},
        "trl": {
            "max_steps": 0,
            "learning_rate": args.lr,
            "lr_scheduler_type": "constant",
            "per_device_train_batch_size": 32,
            "num_generations": 8,
            "max_completion_length": 32,
            "temperature": args.temperature,
            "beta": 0.0,
            "epsilon": 0.2,
            "epsilon_high": 0.28,
            "save_steps": 20,
            "logging_steps": 1,
            "report_to": [],
            "seed": 0,
        },
    }
    # SFT warm-up only (zero RL steps), then evaluate the warmed policy
    warm = run_training(
        config_from_dict({**base, "trl": {**base["trl"], "max_steps": 1, "learning_rate": 0.0}})
    )
    sft_model = str(run_dir / "sft-model")
    before = evaluate(sft_model, args.samples, args.temperature, seed=1)
    rl_dir = run_dir / "rl"
    result = run_training(
        config_from_dict(
            {
                **base,
                "model": {"name_or_path": sft_model},
                "output": {"dir": str(rl_dir), "cache": "memory"},
                "trl": {**base["trl"], "max_steps": args.rl_steps},
            }
        )
    )
    after = evaluate(str(rl_dir / "final-model"), args.samples, args.temperature, seed=1)
    print(
        f"learning check: tiny Qwen2 ({TINY['hidden_size']}x{TINY['layers']}), SFT {args.sft_steps} steps, "
        f"GRPO {result.steps} steps, {args.samples} samples/task on `easy` at T={args.temperature}"
    )
    print(f"{'':14} {'mean reward':>12} {'pass rate':>10}")
    print(f"{'before RL':14} {before['mean_reward']:12.3f} {before['pass_rate']:10.3f}")
    print(f"{'after RL':14} {after['mean_reward']:12.3f} {after['pass_rate']:10.3f}")
    print(
        f"plot: {result.plot}   run: {rl_dir}   time: {time.monotonic() - started:.0f}s   "
        f"warm-up run: {warm.status}"
    )
    (run_dir / "learning_check.json").write_text(
        json.dumps({"before": before, "after": after, "rl_steps": result.steps}, indent=2)
    )


if __name__ == "__main__":
    main()
