"""`codegym.eval.api.evaluate`: the evaluation behind `codegym eval`, called as a library."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from codegym.eval.api import EvalJob, GenerationRequest, evaluate
from codegym.eval.runs import eval_output
from codegym.reward.cache import SQLiteCache
from codegym.reward.config import RewardConfig
from codegym.reward.session import JudgingOptions
from codegym.tasks import TaskRegistry


def test_a_samples_file_is_judged_recorded_and_the_stores_closed(tmp_path: Path) -> None:
    pack = TaskRegistry().load("easy")
    tasks = list(pack.tasks.values())[:2]
    samples = tmp_path / "samples.jsonl"
    rows = [{"task_id": t.task_id, "solution": t.reference_solution} for t in tasks]
    rows.append({"task_id": tasks[1].task_id, "solution": "def nothing():\n    pass\n"})
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    job = EvalJob(
        pack=pack,
        out_dir=out,
        ks=[1],
        samples_file=samples,
        database_url=f"sqlite:///{tmp_path / 'results.sqlite'}",
    )
    cache, yardsticks = tmp_path / "cache.sqlite", tmp_path / "yardsticks.sqlite"
    judging = JudgingOptions(workers=1, reward=RewardConfig(), cache=str(cache), yardsticks=str(yardsticks))
    with eval_output(out):
        report = evaluate(job, judging)
    results = report.outcome.results
    assert results["counts"]["samples"] == 3 and results["counts"]["passed"] == 2
    assert report.recorded is True and (out / "results.json").is_file()
    # the judge's stores were written and released: another process could take them over now
    for path in (cache, yardsticks):
        with sqlite3.connect(path) as connection:
            assert connection.execute("SELECT COUNT(*) FROM results").fetchone()[0] >= 1
        assert SQLiteCache(path).get("absent") is None


def test_generation_defaults_follow_the_cli() -> None:
    assert GenerationRequest(model="m").sampling_temperature == 0.0
    assert GenerationRequest(model="m", n_samples=5).sampling_temperature == 0.8
    assert GenerationRequest(model="m", n_samples=5, temperature=0.2).sampling_temperature == 0.2


def test_a_bad_cache_fails_before_any_model_loads(tmp_path: Path) -> None:
    """The session opens before the generator: a model path that does not exist is never reached."""
    from codegym.reward.cache import CacheError

    job = EvalJob(
        pack=TaskRegistry().load("easy"),
        out_dir=tmp_path / "run",
        ks=[1],
        generation=GenerationRequest(model=str(tmp_path / "no-such-model")),
    )
    with pytest.raises(CacheError, match="unknown cache"), eval_output(job.out_dir):
        evaluate(job, JudgingOptions(workers=1, cache="bogus://x"))
