"""The reward means correctness: no flag on correct, ordinary code (the idioms corpus, the real-pytest
path, measurement under heavy CPU contention), flags only on evidence that repeats, and efficiency
measured from outside the program."""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegym.reward.cache import MemoryCache
from codegym.reward.config import RewardConfig
from codegym.reward.scoring import ReferenceStats, RewardJudge
from codegym.sandbox.types import ExecResult, ExecStatus
from codegym.tasks.humaneval import load_humaneval_pack
from codegym.tasks.registry import TaskRegistry

DATA = Path(__file__).resolve().parents[1] / "data"
HUMANEVAL = load_humaneval_pack()
REGISTRY = TaskRegistry()


def task_of(task_id: str):
    pack = "humaneval" if task_id.startswith("HumanEval/") else task_id.split("/")[0]
    return REGISTRY.load(pack).get(task_id)


def load_rows(name: str) -> list[dict[str, str]]:
    path = DATA / name
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines() if line.strip()]


@pytest.fixture()
def cpu_contention() -> Iterator[None]:
    """Two busy processes on this machine's two cores for the duration of a test."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        yield
    finally:
        for burner in burners:
            burner.kill()
            burner.wait()


@pytest.mark.slow
def test_correct_idioms_raise_no_flag_judged_three_times(reward_backend) -> None:
    rows = load_rows("correct_idioms.jsonl")
    assert len(rows) >= 100
    judge = RewardJudge(reward_backend, RewardConfig())
    items = [(task_of(row["task_id"]), row["solution"], None) for row in rows]
    for _ in range(3):
        flagged = {
            f"{row['task_id']} ({row['idiom']})": (
                scored.breakdown.flags,
                scored.breakdown.details["detector_evidence"],
            )
            for row, scored in zip(rows, judge.score_many(items), strict=True)
            if scored.breakdown.flags or not scored.breakdown.passed
        }
        assert flagged == {}
    assert judge.stats()["hack_rate"] == 0.0


def test_real_pytest_path_references_raise_no_flag(reward_backend) -> None:
    pack = REGISTRY.load("basics")
    tasks = [t for t in pack.tasks.values() if "parametrize" in "".join(t.hidden_tests.files.values())]
    assert len(tasks) >= 3
    judge = RewardJudge(reward_backend, RewardConfig())
    results = judge.score_many([(t, t.reference_solution, None) for t in tasks])
    assert [(r.breakdown.flags, r.breakdown.passed) for r in results] == [((), True)] * len(tasks)
    assert all(r.result is not None and r.result.runner == "pytest" for r in results)


def test_measurement_under_cpu_contention_changes_no_verdict(reward_backend, cpu_contention) -> None:
    tasks = [HUMANEVAL.get(f"HumanEval/{i}") for i in range(0, 164, 8)]
    judge = RewardJudge(reward_backend, RewardConfig())
    for _ in range(3):
        results = judge.score_many([(t, t.reference_solution, None) for t in tasks])
        assert [(r.breakdown.passed, r.breakdown.flags) for r in results] == [(True, ())] * len(tasks)
        assert all(r.result is not None and "timing_incomplete" not in r.result.flags for r in results)


def test_the_reference_against_itself_scores_full_efficiency(reward_backend) -> None:
    tasks = [HUMANEVAL.get(f"HumanEval/{i}") for i in range(0, 164, 11)]
    judge = RewardJudge(reward_backend, RewardConfig())
    runs = [
        [
            r.breakdown.components["efficiency"]
            for r in judge.score_many([(t, t.reference_solution, None) for t in tasks])
        ]
        for _ in range(3)
    ]
    # the reference against itself: within the tolerance and the floor, so full efficiency unless a
    # run reads it ~2.5x slower twice under this suite's own load (the benchmark,
    # benchmarks/reward_fidelity.py, measures the share of identical scores on a quiet machine)
    assert all(value >= 0.8 for run in runs for value in run), runs
    assert sum(value == 1.0 for run in runs for value in run) >= 0.95 * sum(len(run) for run in runs), runs


def test_slow_programs_and_references_are_timed_again_at_a_later_moment(reward_backend) -> None:
    """`retime`: a passing program below full efficiency, and every reference (its yardstick is kept),
    get a second judgment once the batch is done, whose samples join the first's; a program already
    at full efficiency, or one that failed, does not. Without it, one judgment each."""
    task = HUMANEVAL.get("HumanEval/0")
    slow = (
        task.prefix
        + "    x = 0\n    for i in range(300000):\n        x += i\n"
        + task.reference_solution[len(task.prefix) :]
    )
    wrong = task.prefix + "    return False\n"
    items = [(task, task.reference_solution, None), (task, slow, None), (task, wrong, None)]
    for retime in (True, False):
        # the 10 ms floor keeps the reference against itself at full efficiency under this suite's load
        judge = RewardJudge(reward_backend, RewardConfig(timing_floor_ms=10.0, retime=retime))
        before = reward_backend.pool_state()["executions"]
        fast, slowed, failed = judge.score_many(items)
        executions = reward_backend.pool_state()["executions"] - before
        assert slowed.breakdown.passed and slowed.breakdown.components["efficiency"] < 1.0
        assert fast.breakdown.components["efficiency"] == 1.0 and len(fast.result.timings_s) == 1
        assert not failed.breakdown.passed and failed.result.timings_s == ()
        if retime:  # the reference twice, the three programs, the slow one again
            assert executions == 2 + 3 + 1 and len(slowed.result.timings_s) == 4
        else:
            assert executions == 1 + 3 and len(slowed.result.timings_s) == 2


@pytest.mark.parametrize(
    ("fastest_ms", "efficiency"),
    [(0.5, 1.0), (1.3, 1.0), (3.3, 1.0), (3.4, 0.9), (6.6, 0.5), (33.0, 0.1), (40.0, 0.0)],
)
def test_efficiency_scores_noise_below_the_floor_as_full(fastest_ms: float, efficiency: float) -> None:
    """1 ms reference, 30% tolerance, 2 ms floor: up to 3.3 ms is full efficiency (a millisecond
    program reads twice its time on a loaded machine: identical programs must score identically);
    beyond it the score falls with the time, in steps of 0.1."""
    judge = RewardJudge(None, RewardConfig(timing_floor_ms=2.0, timing_tolerance=0.3))  # type: ignore[arg-type]
    result = ExecResult(status=ExecStatus.PASSED, timings_s=(fastest_ms / 1000.0, 0.05))
    reference = ReferenceStats(cpu_s=0.001, return_types=None, complexity=None)
    assert judge._efficiency(result, reference) == efficiency
    assert judge.full_efficiency_s(0.001) == pytest.approx(0.0033)


def test_a_flag_counts_only_when_a_second_judgment_repeats_it(reward_backend) -> None:
    task = HUMANEVAL.get("HumanEval/2")
    # Decided once per run (the tests call the function several times): exits in half the runs.
    flaky = (
        "import os, random\n_EXIT = random.random() < 0.5\n"
        + task.prefix
        + "    if _EXIT:\n        os._exit(0)\n    return number % 1.0\n"
    )
    always = task.prefix + "    import os\n    os._exit(0)\n"
    cache = MemoryCache()
    judge = RewardJudge(reward_backend, RewardConfig(), cache=cache)
    judge.score(task, task.reference_solution)  # stores the reference yardstick: later writes are verdicts
    disagreements = 0
    for attempt in range(40):
        code = flaky + f"    # {attempt}\n"  # a distinct program (and cache key) each time
        writes = cache.stats.writes
        breakdown = judge.score(task, code)
        stored = cache.stats.writes - writes
        if breakdown.flags:
            assert breakdown.flags == ("early_exit",) and stored == 1  # confirmed by the second judgment
        elif stored == 0:
            disagreements += 1  # one judgment flagged, the other did not: unflagged, and not stored
        again = judge.score_many([(task, code, None)])[0]
        assert (again.result is None) == bool(stored), (attempt, breakdown.flags)
    assert disagreements > 0
    assert judge.score(task, always).flags == ("early_exit",)
    assert judge.score_many([(task, always, None)])[0].result is None  # confirmed, so cached
