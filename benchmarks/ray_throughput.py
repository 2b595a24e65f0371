"""Ray backend on one node vs the local backend, on HumanEval's canonical solutions x4 (656 samples).

Each backend runs in its own fresh process (the local one never imports Ray); both start their pools
first (Ray's start-up is reported apart), then judge the 656 samples once to warm up and `--repeats`
times measured. The two alternate for `--rounds` rounds; the medians are compared (target >= 0.8).

    .venv/bin/python benchmarks/ray_throughput.py [--rounds 3] [--workers 4]
"""

from __future__ import annotations

import argparse
import json
import statistics
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
CHILD = """
import json, sys, time
started = time.perf_counter()
from codegym.sandbox import create_backend
from codegym.sandbox.requests import request_for_task
from codegym.tasks.humaneval import load_humaneval_pack
pack = load_humaneval_pack()
requests = [request_for_task(t, t.reference_solution) for t in pack.tasks.values()] * 4
name, workers = sys.argv[1], int(sys.argv[2])
with create_backend(name, workers=workers) as backend:
    backend.start()
    ready = time.perf_counter() - started
    backend.execute_many(requests)  # warm-up: first sight of every test set
    t0 = time.perf_counter()
    results = backend.execute_many(requests)
    elapsed = time.perf_counter() - t0
print(json.dumps({"rate": len(results) / elapsed, "passed": sum(r.passed for r in results),
                  "n": len(results), "startup_s": ready}))
"""


def run(name: str, workers: int) -> dict:
    completed = subprocess.run(
        [sys.executable, "-c", CHILD, name, str(workers)],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    )
    return json.loads(completed.stdout.strip().splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=4)
    args = parser.parse_args()
    rates: dict[str, list[float]] = {"local": [], "ray": []}
    for round_number in range(1, args.rounds + 1):
        for name in ("local", "ray"):
            figures = run(name, args.workers)
            rates[name].append(figures["rate"])
            print(
                f"round {round_number} {name:5s}: {figures['rate']:.1f} samples/s, "
                f"{figures['passed']}/{figures['n']} passed, start-up {figures['startup_s']:.1f} s",
                flush=True,
            )
    local, ray = statistics.median(rates["local"]), statistics.median(rates["ray"])
    print(f"median: ray {ray:.1f}/s vs local {local:.1f}/s = {ray / local:.2f}x (target >= 0.80)")


if __name__ == "__main__":
    main()
