"""Learning check: does RL on the execution reward make a policy more correct? CPU, offline.

For each seed: the quick start's recipe (configs/quickstart.yaml: tiny Qwen2, SFT warm-up, GRPO on
the default reward) trained on 15 of the `easy` pack's 20 tasks; the other 5 are held out (never
seen in SFT or RL). The model RL started from (the SFT model) and the final model are then sampled
the same way and judged on the hidden tests:

* pass@1 at T = 1 (`--samples` per task), training and held-out tasks, with the difference's 95%
  confidence interval from a paired bootstrap over tasks (samples of one task are not independent);
* greedy pass rate (T = 0, one sample per task), with the same interval.

    .venv/bin/python -m benchmarks.learning_check [--seeds 0 1 2] [--samples 50] [--sft-steps 60] [--out DIR]

Writes benchmarks/results/learning_check.json (every figure, per seed) unless --no-save.
"""

from __future__ import annotations

import argparse
import json
import time
from pathlib import Path

from codegym.sandbox.local import LocalBackend
from codegym.tasks.registry import TaskRegistry
from codegym.train.config import load_train_config
from codegym.train.learning import SamplingSettings, evaluate_learning
from codegym.train.run import run_training

ROOT = Path(__file__).resolve().parents[1]
RESULTS = ROOT / "benchmarks" / "results" / "learning_check.json"


def split_tasks() -> tuple[list[str], list[str]]:
    """Every fourth task (in the pack's order) is held out."""
    ids = sorted(task.task_id for task in TaskRegistry().load("easy").tasks.values())
    held_out = ids[::4]
    return [t for t in ids if t not in held_out], held_out


def one_seed(seed: int, samples: int, out: Path, sft_steps: int) -> dict:
    train_ids, held_out_ids = split_tasks()
    run_dir = out / f"seed{seed}"
    config = load_train_config(
        ROOT / "configs" / "quickstart.yaml",
        [
            f"output.dir={run_dir}",
            f"trl.seed={seed}",
            "evaluation.enabled=false",
            "trl.report_to=[]",
            "output.plot=false",
            f"data.tasks={json.dumps(train_ids)}",
            f"model.sft_warmup_steps={sft_steps}",
        ],
    )
    started = time.monotonic()
    result = run_training(config, log=lambda *_: None)
    train_s = time.monotonic() - started
    by_id = {task.task_id: task for task in TaskRegistry().load("easy").tasks.values()}
    figures = {"seed": seed, "rl_steps": result.steps, "train_seconds": round(train_s, 1)}
    length = int(config.trl["max_completion_length"])
    with LocalBackend() as backend:
        for split, ids in (("training tasks", train_ids), ("held-out tasks", held_out_ids)):
            tasks = [by_id[t] for t in ids]
            for label, n, temperature in (("pass@1", samples, 1.0), ("greedy", 1, 0.0)):
                report = evaluate_learning(
                    str(run_dir / "sft-model"),
                    str(run_dir / "final-model"),
                    tasks,
                    backend,
                    SamplingSettings(
                        samples_per_task=n,
                        temperature=temperature,
                        max_new_tokens=length,
                        seed=1234,
                        prompt=config.data.prompt,
                    ),
                    split=split,
                )
                figures[f"{split} {label}"] = report.difference.to_dict()
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1, 2])
    parser.add_argument("--samples", type=int, default=50, help="samples per task for pass@1 at T=1")
    parser.add_argument(
        "--sft-steps",
        type=int,
        default=60,
        help="SFT warm-up steps (the quick start's 90 over 20 tasks, scaled to 15: about 60%% pass@1)",
    )
    parser.add_argument("--out", type=Path, default=Path("/tmp/codegym-learning-check"))
    parser.add_argument("--no-save", action="store_true")
    args = parser.parse_args()
    train_ids, held_out_ids = split_tasks()
    print(f"easy: {len(train_ids)} training tasks, {len(held_out_ids)} held out ({', '.join(held_out_ids)})")
    runs = []
    for seed in args.seeds:
        figures = one_seed(seed, args.samples, args.out, args.sft_steps)
        runs.append(figures)
        print(f"seed {seed}: {figures['rl_steps']} GRPO steps, {figures['train_seconds']} s of training")
        for key, value in figures.items():
            if isinstance(value, dict):
                interval = f"[{value['ci_low']:+.3f}, {value['ci_high']:+.3f}]"
                print(
                    f"  {key:26} {value['before']:.3f} -> {value['after']:.3f}  "
                    f"diff {value['difference']:+.3f}  95% CI {interval}"
                )
    if not args.no_save:
        RESULTS.parent.mkdir(parents=True, exist_ok=True)
        command = "python -m benchmarks.learning_check " + " ".join(
            [
                "--seeds",
                *map(str, args.seeds),
                "--samples",
                str(args.samples),
                "--sft-steps",
                str(args.sft_steps),
            ]
        )
        RESULTS.write_text(json.dumps({"command": command, "runs": runs}, indent=2) + "\n")
        print(f"written: {RESULTS.relative_to(ROOT)}")


if __name__ == "__main__":
    main()
