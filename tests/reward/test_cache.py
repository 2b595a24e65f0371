"""Result cache: SQLite and a real Redis server; keys that make poisoning impossible."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.cache import MemoryCache, RedisCache, SQLiteCache, cache_key, open_cache
from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.tasks.humaneval import load_humaneval_pack
from codegym.tasks.model import TestSuite

TASK = load_humaneval_pack().get("HumanEval/2")
BREAKDOWN = RewardBreakdown(
    total=0.75,
    components={"tests": 1.0},
    status="passed",
    flags=(),
    passed=True,
    tests_passed=3,
    tests_total=3,
    details={"wall_s": 0.01},
)


@pytest.fixture(params=["sqlite", "redis"])
def cache(request: pytest.FixtureRequest, tmp_path: Path):
    if request.param == "sqlite":
        store = SQLiteCache(tmp_path / "cache.sqlite")
    else:
        store = RedisCache(request.getfixturevalue("redis_url"), prefix=f"test:{tmp_path.name}:")
    yield store
    store.close()


def test_round_trip_and_hit_rate(cache) -> None:
    key = cache_key("task", "code", "config", "image")
    assert cache.get(key) is None
    cache.put(key, BREAKDOWN)
    hit = cache.get(key)
    assert hit is not None and hit.cached and hit.to_dict() == BREAKDOWN.to_dict()
    assert cache.stats.as_dict() == {"hits": 1, "misses": 1, "writes": 1, "hit_rate": 0.5}


def test_sandbox_errors_are_never_stored(cache) -> None:
    key = cache_key("task", "code", "config", "image")
    cache.put(key, replace(BREAKDOWN, total=None, status="sandbox_error"))
    assert cache.get(key) is None


def test_sqlite_cache_persists(tmp_path: Path) -> None:
    first = SQLiteCache(tmp_path / "c.sqlite")
    first.put("k", BREAKDOWN)
    first.close()
    assert SQLiteCache(tmp_path / "c.sqlite").get("k") is not None


def test_open_cache_specs(tmp_path: Path, redis_url: str) -> None:
    assert isinstance(open_cache("memory"), MemoryCache)
    assert isinstance(open_cache(str(tmp_path / "x.sqlite")), SQLiteCache)
    assert isinstance(open_cache(redis_url), RedisCache)


def test_keys_differ_for_every_ingredient() -> None:
    base = cache_key("task", "code", "config", "image")
    assert (
        len(
            {
                base,
                cache_key("task2", "code", "config", "image"),
                cache_key("task", "code2", "config", "image"),
                cache_key("task", "code", "config2", "image"),
                cache_key("task", "code", "config", "image2"),
                cache_key("task", "code", "config", "image", kind="reference"),
            }
        )
        == 6
    )


def test_no_poisoning_across_configs_or_task_versions(reward_backend, redis_url: str) -> None:
    shared = RedisCache(redis_url, prefix="test:poison:")
    code = TASK.reference_solution
    first = RewardJudge(reward_backend, RewardConfig(), shared).score(TASK, code)
    again = RewardJudge(reward_backend, RewardConfig(), shared).score(TASK, code)
    assert not first.cached and again.cached and again.total == first.total
    other_config = RewardConfig.from_dict({"weights": {"style": 0.5}})
    assert not RewardJudge(reward_backend, other_config, shared).score(TASK, code).cached
    stricter = replace(
        TASK,
        hidden_tests=TestSuite(
            {
                "test_hidden.py": TASK.hidden_tests.files["test_hidden.py"]
                + "\n\ndef test_extra():\n    assert False\n"
            }
        ),
    )
    changed = RewardJudge(reward_backend, RewardConfig(), shared).score(stricter, code)
    assert not changed.cached and changed.status == "failed" and first.status == "passed"
    shared.close()


def test_reference_yardsticks_outlive_the_judge_without_a_result_cache(reward_backend, tmp_path) -> None:
    task = load_humaneval_pack().get("HumanEval/0")
    store = tmp_path / "yardsticks.sqlite"

    def executions_for_one_score() -> tuple[int, float]:
        config = RewardConfig(
            timing_floor_ms=10.0
        )  # see test_efficiency_rewards_cpu_time_against_the_reference
        judge = RewardJudge(reward_backend, config, cache=None, yardsticks=SQLiteCache(store))
        before = reward_backend.pool_state()["executions"]
        breakdown = judge.score(task, task.reference_solution)
        return reward_backend.pool_state()["executions"] - before, breakdown.components["efficiency"]

    first, first_efficiency = executions_for_one_score()
    second, second_efficiency = executions_for_one_score()
    assert (first, second) == (3, 1)  # the reference ran (twice: `retime`) in the first judge only
    # the stored yardstick is the reference's own time: itself against it scores full efficiency, give
    # or take one step of this suite's timing noise
    assert first_efficiency >= 0.9 and second_efficiency >= 0.9


def test_the_judge_version_changes_with_the_reward_code(monkeypatch: pytest.MonkeyPatch) -> None:
    """A cached breakdown must not outlive a change to the code that decided it: the sandbox's, the
    reward's and the tasks' modules are hashed into the judge version."""
    from pathlib import Path

    from codegym.reward import cache as cache_module

    cache_module.judge_version.cache_clear()
    before = cache_module.judge_version()
    real = Path.read_bytes

    def edited(path: Path) -> bytes:
        data = real(path)
        return data + b"# edited\n" if (path.parent.name, path.name) == edited_file else data

    monkeypatch.setattr(Path, "read_bytes", edited)
    # a detector, and the importers' shown cases that the gap detector reads (audit 16, S5)
    for edited_file in (
        ("reward", "detectors.py"),
        ("formats", "stdio_examples.py"),
        ("inside", "harness.py"),
    ):
        cache_module.judge_version.cache_clear()
        assert cache_module.judge_version() != before, edited_file
    monkeypatch.undo()
    cache_module.judge_version.cache_clear()
    assert cache_module.judge_version() == before
