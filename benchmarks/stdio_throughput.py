"""Judging throughput on stdin/stdout problems (cases per second), end to end as users run it.

codegym: `codegym judge SAMPLES --pack bench_stdio --tasks-dir DIR --no-reward --out OUT` in a fresh
process (start-up, pack loading and the worker pool included) on a pack in the APPS schema written
here: PROBLEMS problems x CASES cases, each sample the problem's reference program.

Baseline: what peers' harnesses do (APPS/TACO/LiveCodeBench-style): one
`subprocess.run([python, solution.py], input=case, timeout=limit)` per case, compared line by line,
on a thread pool of one thread per core, in its own clean process (it never imports codegym, torch
or coverage). It isolates nothing.

Both judge the same programs and cases and every case must pass in both; the two alternate for
`--rounds` rounds and the medians are compared.

    .venv/bin/python benchmarks/stdio_throughput.py [--problems 40] [--cases 25] [--rounds 3]
"""

from __future__ import annotations

import argparse
import json
import os
import random
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

# (reference program, input maker) pairs: small, typical contest programs
PROGRAMS = [
    (
        "n = int(input())\nxs = list(map(int, input().split()))\nprint(sum(xs))\n",
        lambda rng: [rng.randint(-1000, 1000) for _ in range(rng.randint(1, 200))],
    ),
    (
        "import sys\ndata = sys.stdin.read().split()\nn = int(data[0])\n"
        "print(' '.join(map(str, sorted(map(int, data[1:n + 1])))))\n",
        lambda rng: [rng.randint(0, 10**6) for _ in range(rng.randint(1, 300))],
    ),
    (
        "n = int(input())\nxs = list(map(int, input().split()))\nbest = cur = xs[0]\n"
        "for x in xs[1:]:\n    cur = max(x, cur + x)\n    best = max(best, cur)\nprint(best)\n",
        lambda rng: [rng.randint(-50, 50) for _ in range(rng.randint(1, 400))],
    ),
    (
        "from collections import Counter\nn = int(input())\nxs = input().split()\n"
        "c = Counter(xs)\nprint(max(c.values()), len(c))\n",
        lambda rng: [rng.randint(0, 20) for _ in range(rng.randint(1, 300))],
    ),
]

BASELINE = """
import json, os, subprocess, sys
from concurrent.futures import ThreadPoolExecutor
problems = json.load(open(sys.argv[1]))
folder = sys.argv[2]
jobs = []
for problem in problems:
    path = os.path.join(folder, problem["id"] + ".py")
    with open(path, "w") as handle:
        handle.write(problem["program"])
    for given, expected in zip(problem["inputs"], problem["outputs"]):
        jobs.append((path, given, expected))
def norm(text):
    lines = [line.rstrip() for line in text.replace("\\r\\n", "\\n").split("\\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines
def judge(job):
    path, given, expected = job
    try:
        done = subprocess.run([sys.executable, path], input=given, capture_output=True, text=True, timeout=4)
    except subprocess.TimeoutExpired:
        return False
    return done.returncode == 0 and norm(done.stdout) == norm(expected)
with ThreadPoolExecutor(max_workers=os.cpu_count() or 1) as pool:
    print(sum(pool.map(judge, jobs)))
"""


def make_problems(count: int, cases: int, seed: int = 0) -> list[dict]:
    rng = random.Random(seed)
    problems = []
    for index in range(count):
        program, make_input = PROGRAMS[index % len(PROGRAMS)]
        inputs, outputs = [], []
        for _ in range(cases):
            xs = make_input(rng)
            given = f"{len(xs)}\n{' '.join(map(str, xs))}\n"
            inputs.append(given)
            outputs.append(_expected(program, given))
        problems.append({"id": str(1000 + index), "program": program, "inputs": inputs, "outputs": outputs})
    return problems


def _expected(program: str, given: str) -> str:
    argv = [sys.executable, "-c", program]
    done = subprocess.run(argv, input=given, capture_output=True, text=True, check=True)
    return done.stdout


def write_pack(root: Path, problems: list[dict]) -> None:
    pack = root / "bench_stdio"
    pack.mkdir(parents=True)
    (pack / "pack.yaml").write_text(
        "name: bench_stdio\nversion: 1.0.0\nformat: apps\ndata: problems.jsonl\n"
        "description: stdin/stdout throughput benchmark (generated)\n"
    )
    with (pack / "problems.jsonl").open("w") as handle:
        for problem in problems:
            row = {
                "problem_id": int(problem["id"]),
                "question": "Read N and N integers; answer as the reference does.",
                "solutions": json.dumps([problem["program"]]),
                "input_output": json.dumps({"inputs": problem["inputs"], "outputs": problem["outputs"]}),
                "starter_code": "",
                "difficulty": "introductory",
                "url": "",
            }
            handle.write(json.dumps(row) + "\n")


def run_codegym(samples: Path, tasks_dir: Path, out: Path, workers: int) -> tuple[float, int]:
    out.unlink(missing_ok=True)
    argv = [str(ROOT / ".venv" / "bin" / "codegym"), "judge", str(samples), "--pack", "bench_stdio"]
    argv += ["--tasks-dir", str(tasks_dir), "--no-reward", "--cache", "off", "--out", str(out)]
    if workers:
        argv += ["--workers", str(workers)]
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True)
    elapsed = time.perf_counter() - started
    rows = [json.loads(line) for line in out.read_text().splitlines()]
    cases_passed = sum(sum(t["outcome"] == "passed" for t in row["test_results"]) for row in rows)
    return elapsed, cases_passed


def run_baseline(problems_file: Path, scratch: Path) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(
        [sys.executable, "-c", BASELINE, str(problems_file), str(scratch)],
        check=True,
        capture_output=True,
        text=True,
        env={"PATH": os.environ.get("PATH", "/usr/bin:/bin")},
    )
    return time.perf_counter() - started, int(done.stdout.strip())


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--problems", type=int, default=40)
    parser.add_argument("--cases", type=int, default=25)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--workers", type=int, default=0, help="codegym's workers (0: its default)")
    args = parser.parse_args()
    problems = make_problems(args.problems, args.cases)
    total = args.problems * args.cases
    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        write_pack(root / "tasks", problems)
        problems_file = root / "problems.json"
        problems_file.write_text(json.dumps(problems))
        samples = root / "samples.jsonl"
        samples.write_text(
            "".join(json.dumps({"task_id": p["id"], "solution": p["program"]}) + "\n" for p in problems)
        )
        (root / "baseline").mkdir()
        ours, theirs = [], []
        for round_number in range(args.rounds):
            elapsed, passed = run_codegym(samples, root / "tasks", root / "out.jsonl", args.workers)
            assert passed == total, f"codegym passed {passed} of {total} cases"
            ours.append(total / elapsed)
            elapsed, passed = run_baseline(problems_file, root / "baseline")
            assert passed == total, f"the baseline passed {passed} of {total} cases"
            theirs.append(total / elapsed)
            print(f"round {round_number + 1}: codegym {ours[-1]:.1f}, baseline {theirs[-1]:.1f} cases/s")
    ratio = statistics.median(ours) / statistics.median(theirs)
    print(
        f"{args.problems} problems x {args.cases} cases on {os.cpu_count()} cores: codegym (isolated, CLI) "
        f"{statistics.median(ours):.1f} cases/s vs subprocess-per-case baseline "
        f"{statistics.median(theirs):.1f} cases/s: {ratio:.2f}x (target >= 5x)"
    )


if __name__ == "__main__":
    main()
