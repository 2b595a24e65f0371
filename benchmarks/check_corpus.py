"""Check the two hand-written solution corpora against their tasks, in the sandbox, with plain
verdicts (no reward):

    .venv/bin/python -m benchmarks.check_corpus [--workers 2] [--only SUBSTRING] [--flags]

* tests/data/correct_idioms.jsonl — rows {"task_id", "idiom", "solution"}: correct, ordinary code
  written in one idiom each (containers, dataclasses, generators, debug prints, signals, ...). Every
  row must pass all of its task's hidden tests, and its visible tests when the task has any. These
  are the programs the reward's hacking detectors must never fire on.
* tests/data/reward_variants.jsonl — rows {"task_id", "variant", "solution"}, five variants per
  task: clean, ugly and slow must pass every hidden test; partial must pass between 25% and 75%
  of them (counted test results: tests_passed / tests_total); wrong at most 10%. A slow row must
  also finish within half of its task's time limit. Every task must have each variant exactly once.

Each solution is the whole file the model would write (for HumanEval: the prompt plus the
completion). The run prints counts per idiom, pack and variant, then every row that breaks its
rule, and exits 1 if there is any (2 if a file cannot be read at all). `--flags` also lists the
runner's observations (`ExecResult.flags`) on rows that pass; they decide no verdict here.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from collections import Counter, defaultdict
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path

from codegym.sandbox.local import LocalBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus
from codegym.tasks.model import Task, TaskPack
from codegym.tasks.registry import TaskRegistry

ROOT = Path(__file__).resolve().parents[1]
IDIOMS = ROOT / "tests" / "data" / "correct_idioms.jsonl"
VARIANTS = ROOT / "tests" / "data" / "reward_variants.jsonl"
VARIANT_NAMES = ("clean", "ugly", "partial", "wrong", "slow")
PARTIAL_RANGE = (0.25, 0.75)
WRONG_MAX = 0.10
SLOW_SHARE_OF_LIMIT = 0.5


@dataclass
class Row:
    source: str  # "idioms" or "variants"
    line: int
    task_id: str
    label: str  # the idiom or the variant
    solution: str
    task: Task | None = None
    results: dict[str, ExecResult] = field(default_factory=dict)  # suite -> result
    problems: list[str] = field(default_factory=list)

    @property
    def where(self) -> str:
        return f"{self.source}:{self.line} {self.task_id} [{self.label}]"


class Tasks:
    """Task lookup by full task id (`HumanEval/N`, `basics/name`, ...), loading packs on demand."""

    def __init__(self) -> None:
        self.registry = TaskRegistry()
        self.packs: dict[str, TaskPack] = {}

    @staticmethod
    def pack_name(task_id: str) -> str:
        return "humaneval" if task_id.startswith("HumanEval/") else task_id.split("/", 1)[0]

    def get(self, task_id: str) -> Task:
        name = self.pack_name(task_id)
        if name not in self.packs:
            self.packs[name] = self.registry.load(name)
        return self.packs[name].get(task_id)


def read_rows(path: Path, source: str, label_key: str) -> list[Row]:
    rows = []
    raw = path.read_bytes().decode("utf-8")  # must be valid UTF-8
    for number, line in enumerate(raw.splitlines(), start=1):
        if not line.strip():
            continue
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            raise ValueError(f"{path}:{number}: not valid JSON ({exc})") from None
        expected = {"task_id", label_key, "solution"}
        if not isinstance(data, dict) or set(data) != expected:
            keys = sorted(data) if isinstance(data, dict) else type(data).__name__
            raise ValueError(f"{path}:{number}: expected exactly the keys {sorted(expected)}, got {keys}")
        if not all(isinstance(data[key], str) and data[key] for key in expected):
            raise ValueError(f"{path}:{number}: every field must be a non-empty string")
        rows.append(Row(source, number, data["task_id"], data[label_key], data["solution"]))
    return rows


def attach_tasks(rows: Iterable[Row], tasks: Tasks) -> None:
    for row in rows:
        try:
            row.task = tasks.get(row.task_id)
        except Exception as exc:  # an unknown pack or task: the row cannot be judged
            row.problems.append(f"unknown task: {exc}")


def requests_for(row: Row, suites: Iterable[str]) -> list[tuple[Row, str, ExecRequest]]:
    if row.task is None:
        return []
    jobs = []
    for suite in suites:
        tests = row.task.hidden_tests if suite == "hidden" else row.task.visible_tests
        if tests:
            request_id = f"{row.source}:{row.line}:{suite}"
            request = request_for_task(row.task, row.solution, suite=suite, request_id=request_id)
            jobs.append((row, suite, request))
    return jobs


def describe(result: ExecResult) -> str:
    text = f"{result.status.value}, {result.tests_passed}/{result.tests_total} tests"
    failed = [t for t in result.tests if t.outcome.value != "passed"]
    if failed:
        first = failed[0]
        lines = (first.message or first.traceback).strip().splitlines()
        detail = lines[0] if first.message and lines else (lines[-1] if lines else "")
        text += f"; first failure {first.test_id} ({first.outcome.value}): {detail[:160]}"
    elif result.message:
        text += f"; {result.message[:160]}"
    return text


def judge_idiom(row: Row) -> None:
    for suite, result in row.results.items():
        if result.status is not ExecStatus.PASSED or result.tests_passed != result.tests_total:
            row.problems.append(f"{suite} tests must all pass: {describe(result)}")
        elif result.tests_total == 0:
            row.problems.append(f"{suite} suite reported no tests")


def judge_variant(row: Row) -> None:
    result = row.results.get("hidden")
    if result is None:
        return
    if result.status is ExecStatus.SANDBOX_ERROR:
        row.problems.append(f"sandbox error (says nothing about the code): {result.message[:200]}")
        return
    rate = result.tests_passed / result.tests_total if result.tests_total else 0.0
    if row.label in ("clean", "ugly", "slow"):
        if result.status is not ExecStatus.PASSED or result.tests_passed != result.tests_total:
            row.problems.append(f"must pass every hidden test: {describe(result)}")
        if row.label == "slow" and row.task is not None:
            allowed = SLOW_SHARE_OF_LIMIT * row.task.limits.timeout_s
            if result.wall_s > allowed:
                row.problems.append(f"too slow: {result.wall_s:.2f}s > {allowed:.1f}s (half the time limit)")
    elif row.label == "partial":
        low, high = PARTIAL_RANGE
        if not (result.tests_total and low <= rate <= high):
            row.problems.append(f"must pass {low:.0%}..{high:.0%} of hidden tests: {describe(result)}")
    elif row.label == "wrong" and rate > WRONG_MAX:
        row.problems.append(f"must pass at most {WRONG_MAX:.0%} of hidden tests: {describe(result)}")


def check_variant_sets(rows: list[Row]) -> list[str]:
    problems = []
    by_task: dict[str, Counter[str]] = defaultdict(Counter)
    for row in rows:
        if row.label not in VARIANT_NAMES:
            row.problems.append(f"unknown variant {row.label!r} (expected one of {', '.join(VARIANT_NAMES)})")
        by_task[row.task_id][row.label] += 1
    for task_id, counts in by_task.items():
        missing = [name for name in VARIANT_NAMES if counts[name] == 0]
        repeated = [name for name in VARIANT_NAMES if counts[name] > 1]
        if missing or repeated:
            problems.append(f"variants {task_id}: missing {missing or '-'}, repeated {repeated or '-'}")
    return problems


def summary_counts(title: str, counter: Counter[str]) -> str:
    items = ", ".join(f"{name} {count}" for name, count in sorted(counter.items()))
    return f"  {title}: {items} (total {sum(counter.values())})"


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--workers", type=int, default=2, help="sandbox workers (default 2)")
    parser.add_argument("--idioms", type=Path, default=IDIOMS)
    parser.add_argument("--variants", type=Path, default=VARIANTS)
    parser.add_argument("--only", default="", help="judge only rows whose task id or label contains this")
    parser.add_argument("--flags", action="store_true", help="also list runner flags on passing rows")
    args = parser.parse_args(argv)

    try:
        idioms = read_rows(args.idioms, "idioms", "idiom")
        variants = read_rows(args.variants, "variants", "variant")
    except (OSError, ValueError) as exc:
        print(f"cannot read the corpus: {exc}", file=sys.stderr)
        return 2
    set_problems = check_variant_sets(variants)
    tasks = Tasks()
    attach_tasks([*idioms, *variants], tasks)

    print(f"idioms: {len(idioms)} rows over {len({r.task_id for r in idioms})} tasks")
    print(summary_counts("per idiom", Counter(r.label for r in idioms)))
    print(summary_counts("per pack", Counter(Tasks.pack_name(r.task_id) for r in idioms)))
    he_tasks = {r.task_id for r in idioms if r.task_id.startswith("HumanEval/")}
    print(f"  HumanEval tasks covered: {len(he_tasks)}")
    print(f"variants: {len(variants)} rows over {len({r.task_id for r in variants})} tasks")
    print(summary_counts("per variant", Counter(r.label for r in variants)))
    variant_tasks = {r.task_id for r in variants}
    print(summary_counts("tasks per pack", Counter(Tasks.pack_name(t) for t in variant_tasks)))

    selected = [r for r in [*idioms, *variants] if args.only in r.task_id or args.only in r.label]
    jobs = []
    for row in selected:
        jobs += requests_for(row, ("hidden", "visible") if row.source == "idioms" else ("hidden",))
    print(f"judging {len(jobs)} runs of {len(selected)} rows with {args.workers} workers ...", flush=True)
    started = time.perf_counter()
    with LocalBackend(workers=args.workers) as backend:
        results = backend.execute_many([request for _, _, request in jobs], max_concurrency=args.workers)
    for (row, suite, _), result in zip(jobs, results, strict=True):
        row.results[suite] = result
    print(f"judged in {time.perf_counter() - started:.1f}s")

    for row in selected:
        if row.task is None:
            continue
        (judge_idiom if row.source == "idioms" else judge_variant)(row)

    variant_table: dict[str, dict[str, ExecResult]] = defaultdict(dict)
    for row in selected:
        if row.source == "variants" and "hidden" in row.results:
            variant_table[row.task_id][row.label] = row.results["hidden"]
    if variant_table:
        print("\nvariants, hidden tests passed (cpu seconds):")
        for task_id, by_variant in variant_table.items():
            cells = []
            for name in VARIANT_NAMES:
                result = by_variant.get(name)
                if result is None:
                    cells.append(f"{name} -")
                else:
                    cells.append(f"{name} {result.tests_passed}/{result.tests_total} ({result.cpu_s:.2f}s)")
            print(f"  {task_id:34} " + " | ".join(cells))

    if args.flags:
        flagged = [(row, suite, res) for row in selected for suite, res in row.results.items() if res.flags]
        print(f"\nrunner flags on {len(flagged)} runs:")
        for row, suite, result in flagged:
            print(f"  {row.where} {suite}: {', '.join(result.flags)}")

    broken = [row for row in selected if row.problems]
    for problem in set_problems:
        print(f"BROKEN {problem}")
    for row in broken:
        for problem in row.problems:
            print(f"BROKEN {row.where}: {problem}")
    ok_idioms = sum(1 for r in selected if r.source == "idioms" and not r.problems)
    ok_variants = sum(1 for r in selected if r.source == "variants" and not r.problems)
    print(
        f"\nidioms ok {ok_idioms}/{sum(r.source == 'idioms' for r in selected)}, "
        f"variants ok {ok_variants}/{sum(r.source == 'variants' for r in selected)}, "
        f"broken rows {len(broken)}, broken variant sets {len(set_problems)}"
    )
    return 1 if broken or set_problems else 0


if __name__ == "__main__":
    sys.exit(main())
