"""`codegym.eval.api.evaluate`: the evaluation behind `codegym eval`, called as a library."""

from __future__ import annotations

import json
from pathlib import Path

from codegym.eval.api import EvalJob, GenerationRequest, evaluate
from codegym.eval.runs import eval_output
from codegym.reward.cache import MemoryCache
from codegym.reward.config import RewardConfig
from codegym.sandbox.local import LocalBackend
from codegym.tasks import TaskRegistry


def test_a_samples_file_is_judged_recorded_and_the_stores_closed(tmp_path: Path) -> None:
    pack = TaskRegistry().load("easy")
    tasks = list(pack.tasks.values())[:2]
    samples = tmp_path / "samples.jsonl"
    rows = [{"task_id": t.task_id, "solution": t.reference_solution} for t in tasks]
    rows.append({"task_id": tasks[1].task_id, "solution": "def nothing():\n    pass\n"})
    samples.write_text("".join(json.dumps(r) + "\n" for r in rows))
    out = tmp_path / "run"
    closed: list[str] = []

    class Store(MemoryCache):
        def close(self) -> None:
            closed.append("closed")

    job = EvalJob(
        pack=pack,
        out_dir=out,
        ks=[1],
        reward_config=RewardConfig(),
        samples_file=samples,
        database_url=f"sqlite:///{tmp_path / 'results.sqlite'}",
    )
    with eval_output(out):
        report = evaluate(job, lambda: LocalBackend(workers=1), cache=Store(), yardsticks=Store())
    results = report.outcome.results
    assert results["counts"]["samples"] == 3 and results["counts"]["passed"] == 2
    assert report.recorded is True and closed == ["closed", "closed"]
    assert (out / "results.json").is_file()


def test_generation_defaults_follow_the_cli() -> None:
    assert GenerationRequest(model="m").sampling_temperature == 0.0
    assert GenerationRequest(model="m", n_samples=5).sampling_temperature == 0.8
    assert GenerationRequest(model="m", n_samples=5, temperature=0.2).sampling_temperature == 0.2
