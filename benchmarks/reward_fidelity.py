"""Reward fidelity: does the default joint reward mean what it says, run after run?

    .venv/bin/python -m benchmarks.reward_fidelity [--repeats 4] [--workers 0] [--skip-variants]

1. The 164 canonical HumanEval solutions, judged `--repeats` times: hack flags (must be 0) and the
   largest per-task spread of the total reward (target <= 0.05).
   Identical programs, identical efficiency: of every pair of judgments of one program, the share
   whose efficiency scores are equal (target >= 99%), for the canonical solutions' repeats (within
   the reference's tolerance and floor, where noise must not move the score) and for the slowed
   solutions' two runs below (spread across the scale, where a quantised noisy time crosses a step
   now and then; their own target is the run-to-run difference).
2. Efficiency: each canonical solution slowed by 10**5 loop turns per call, judged twice: the share of
   tasks whose efficiency is at least 0.2 below the canonical one (target >= 90%), and the mean
   run-to-run difference of the slow efficiency (target <= 0.05); the same slow solution memoised at
   module level (a dict keyed by the arguments' repr): its mean gain over the unmemoised one (target
   <= 0.1: each timing run is a fresh process, so a memo never carries between runs).
3. The 20-task variant set (tests/data/reward_variants.jsonl: clean, ugly, partial, wrong, slow),
   default config: clean > ugly > partial >= wrong on every task, clean > slow on >= 18; with
   `correctness: fraction`, partial > wrong on every task.

Every judgment is fresh (no result cache). Prints the figures and whether each target is met.
"""

from __future__ import annotations

import argparse
import json
import statistics
import time
from collections import defaultdict
from pathlib import Path

from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.sandbox.backend import create_backend
from codegym.tasks.humaneval import load_humaneval_pack
from codegym.tasks.registry import TaskRegistry

ROOT = Path(__file__).resolve().parents[1]
VARIANTS = ROOT / "tests" / "data" / "reward_variants.jsonl"
SLOW_LOOP = "    for _ in range(100_000):\n        pass\n"
MEMO_HEADER = "_MEMO = {}\n"


def slow(task, memo: bool = False) -> str:
    """The canonical completion with 10**5 idle loop turns at the top of the entry point's body."""
    body = task.reference_solution[len(task.prefix) :]
    code = task.prefix + SLOW_LOOP + body
    if not memo:
        return code
    entry = task.entry_point
    wrapper = (
        f"\n\n_slow_{entry} = {entry}\n\n\ndef {entry}(*args):\n    key = repr(args)\n"
        f"    if key not in _MEMO:\n        _MEMO[key] = _slow_{entry}(*args)\n    return _MEMO[key]\n"
    )
    return MEMO_HEADER + code + wrapper


def judge_all(judge: RewardJudge, items):
    return [scored.breakdown for scored in judge.score_many([(task, code, None) for task, code in items])]


def check(label: str, ok: bool) -> str:
    return f"{label}: {'met' if ok else 'NOT MET'}"


def identical_pairs(scores: list[float | None]) -> tuple[int, int]:
    """(equal, all) over every pair of one program's efficiency scores (None, not measured, skipped)."""
    values = [s for s in scores if s is not None]
    pairs = [(a, b) for i, a in enumerate(values) for b in values[i + 1 :]]
    return sum(a == b for a, b in pairs), len(pairs)


def canonical_section(judge: RewardJudge, tasks, repeats: int) -> list[tuple[int, int]]:
    totals: dict[str, list[float]] = defaultdict(list)
    efficiency: dict[str, list[float | None]] = defaultdict(list)
    flags = 0
    for _ in range(repeats):
        for task, breakdown in zip(
            tasks, judge_all(judge, [(t, t.reference_solution) for t in tasks]), strict=True
        ):
            totals[task.task_id].append(breakdown.total if breakdown.total is not None else float("nan"))
            efficiency[task.task_id].append(breakdown.components.get("efficiency"))
            flags += bool(breakdown.flags)
    spread = max(max(v) - min(v) for v in totals.values())
    print(f"canonical x{repeats}: {flags} hack flags; largest per-task reward spread {spread:.3f}")
    print("  " + check("0 flags", flags == 0) + "; " + check("spread <= 0.05", spread <= 0.05))
    return [identical_pairs(scores) for scores in efficiency.values()]


def efficiency_section(judge: RewardJudge, tasks, pairs: list[tuple[int, int]]) -> None:
    canonical = judge_all(judge, [(t, t.reference_solution) for t in tasks])
    slow_a = judge_all(judge, [(t, slow(t)) for t in tasks])
    slow_b = judge_all(judge, [(t, slow(t)) for t in tasks])
    memo = judge_all(judge, [(t, slow(t, memo=True)) for t in tasks])
    drops, diffs, gains = [], [], []
    for c, a, b, m in zip(canonical, slow_a, slow_b, memo, strict=True):
        ce, ae, be, me = (x.components.get("efficiency") for x in (c, a, b, m))
        if None in (ce, ae, be):
            continue
        drops.append(ce - ae)
        diffs.append(abs(ae - be))
        pairs.append(identical_pairs([ae, be]))
        if me is not None:
            gains.append(me - (ae + be) / 2)
    share = sum(d >= 0.2 for d in drops) / len(drops)
    print(
        f"slowed by 10**5 loop turns per call ({len(drops)} tasks): efficiency >= 0.2 below canonical on "
        f"{share:.1%}; mean run-to-run difference {statistics.mean(diffs):.3f}; memoised gain "
        f"{statistics.mean(gains):+.3f} (mean)"
    )
    print(
        "  "
        + check(">= 90%", share >= 0.9)
        + "; "
        + check("difference <= 0.05", statistics.mean(diffs) <= 0.05)
        + "; "
        + check("memo gain <= 0.1", statistics.mean(gains) <= 0.1)
    )
    equal, total = sum(e for e, _ in pairs), sum(n for _, n in pairs)
    slowed = pairs[len(pairs) - len(drops) :]
    canonical = pairs[: len(pairs) - len(drops)]
    shares = {
        name: (sum(e for e, _ in group), sum(n for _, n in group))
        for name, group in (("canonical repeats", canonical), ("slowed runs", slowed))
    }
    print(
        f"identical programs judged again: identical efficiency in {equal / total:.1%} of {total} pairs; "
        + "; ".join(f"{name} {e}/{n} ({e / n:.1%})" for name, (e, n) in shares.items())
    )
    e, n = shares["canonical repeats"]
    print(
        "  "
        + check("canonical repeats >= 99%", e / n >= 0.99)
        + "; slowed runs: no target of their own (theirs is the run-to-run difference above)"
    )


def variants_section(backend) -> None:
    registry = TaskRegistry()
    rows = [json.loads(line) for line in VARIANTS.read_text(encoding="utf-8").splitlines() if line.strip()]
    packs: dict[str, object] = {}

    def task_of(task_id: str):
        pack_name = "humaneval" if task_id.startswith("HumanEval/") else task_id.split("/")[0]
        if pack_name not in packs:
            packs[pack_name] = registry.load(pack_name)
        return packs[pack_name].get(task_id)  # type: ignore[attr-defined]

    for label, config in (("default", RewardConfig()), ("fraction", RewardConfig(correctness="fraction"))):
        judge = RewardJudge(backend, config)
        breakdowns = judge_all(judge, [(task_of(r["task_id"]), r["solution"]) for r in rows])
        scores: dict[str, dict[str, float]] = defaultdict(dict)
        for row, breakdown in zip(rows, breakdowns, strict=True):
            scores[row["task_id"]][row["variant"]] = breakdown.total if breakdown.total is not None else -9.0
        if label == "default":
            ordered = sum(s["clean"] > s["ugly"] > s["partial"] >= s["wrong"] for s in scores.values())
            faster = sum(s["clean"] > s["slow"] for s in scores.values())
            print(
                f"variants ({len(scores)} tasks), default config: clean > ugly > partial >= wrong on "
                f"{ordered}/{len(scores)}; clean > slow on {faster}/{len(scores)}"
            )
            print("  " + check("every task", ordered == len(scores)) + "; " + check(">= 18", faster >= 18))
            for task_id, s in scores.items():
                if not s["clean"] > s["ugly"] > s["partial"] >= s["wrong"]:
                    print(f"    {task_id}: " + ", ".join(f"{k} {v:.3f}" for k, v in sorted(s.items())))
        else:
            better = sum(s["partial"] > s["wrong"] for s in scores.values())
            print(f"variants, correctness: fraction: partial > wrong on {better}/{len(scores)}")
            print("  " + check("every task", better == len(scores)))


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0)
    parser.add_argument("--skip-variants", action="store_true")
    args = parser.parse_args()
    started = time.perf_counter()
    tasks = list(load_humaneval_pack().tasks.values())
    with create_backend("local", workers=args.workers, coverage=True) as backend:
        judge = RewardJudge(backend, RewardConfig())
        pairs = canonical_section(judge, tasks, args.repeats)
        efficiency_section(judge, tasks, pairs)
        if not args.skip_variants and VARIANTS.exists():
            variants_section(backend)
    print(f"({time.perf_counter() - started:.0f} s)")


if __name__ == "__main__":
    main()
