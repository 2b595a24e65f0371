"""`codegym leaderboard show/export`: complete runs rank first (a partial run is shown, marked and
ranked only with --include-partial), --sort and --limit are validated, task ids sort naturally, and
failed samples name the tests they failed (from a real judged run)."""

from __future__ import annotations

import json
import re
from pathlib import Path

from typer.testing import CliRunner

from codegym.cli.app import app
from codegym.eval.leaderboard import natural_key, page_data
from codegym.eval.results_db import ResultsDB

runner = CliRunner()

TASK_IDS = ["HumanEval/100", "HumanEval/10", "HumanEval/2", "HumanEval/1", "HumanEval/0"]


def run_results(run_id: str, model: str, pass1: float, *, evaluated: int, pack_total: int = 164) -> dict:
    """A results.json as `codegym eval` writes it; `evaluated` < `pack_total` is a --limit run."""
    return {
        "pass@1": pass1,
        "reward": pass1 / 2,
        "components": {"tests": pass1},
        "strict": {"pass@1": pass1},
        "run_id": run_id,
        "model": model,
        "mode": "samples",
        "pack": {"name": "humaneval", "version": "1.0", "hash": "ab" * 32},
        "sandbox": {"backend": "local", "image": "local"},
        "seed": None,
        "generation": None,
        "k": [1],
        "n_samples": {"min": 1, "max": 1},
        # --limit 20: the run is complete on the tasks it selected, but not on the pack
        "tasks": {"pack_total": pack_total, "selected": evaluated, "evaluated": evaluated, "missing": []},
        "complete": True,
        "samples_sha256": "cd" * 32,
        "codegym_version": "0.1.0",
        "per_task": {
            task_id: {"n": 1, "c": 1, "pass@1": 1.0, "reward": 0.5, "statuses": {"passed": 1}}
            for task_id in TASK_IDS
        },
    }


def db_with_runs(tmp_path: Path) -> list[str]:
    url = f"sqlite:///{tmp_path / 'results.sqlite'}"
    with ResultsDB(url) as db:
        db.record(run_results("full0000", "full-model", 0.6, evaluated=164))
        db.record(run_results("part0000", "partial-model", 1.0, evaluated=20))
        db.record(run_results("weak0000", "weak-model", 0.3, evaluated=164))
    return ["--db", url]


def invoke(*args: object):
    return runner.invoke(app, [str(a) for a in args])


def test_complete_runs_rank_first_and_partial_runs_only_on_request(tmp_path: Path) -> None:
    db = db_with_runs(tmp_path)
    rows = json.loads(invoke("leaderboard", "show", *db, "--json").stdout)
    assert [(r["model"], r["rank"], r["partial"]) for r in rows] == [
        ("full-model", 1, False),
        ("weak-model", 2, False),
        ("partial-model", None, True),  # 100% on 20 of 164 tasks: shown, marked, not ranked
    ]
    assert rows[2]["tasks"] == "20/164"
    table = invoke("leaderboard", "show", *db)
    assert table.exit_code == 0, table.output
    lines = table.output.splitlines()
    full, partial = (next(i for i, line in enumerate(lines) if name in line) for name in ("full", "partial"))
    assert full < partial and "(partial)" in lines[partial] and "--include-partial" in table.output
    ranked = json.loads(invoke("leaderboard", "show", *db, "--json", "--include-partial").stdout)
    assert [(r["model"], r["rank"]) for r in ranked] == [
        ("partial-model", 1),
        ("full-model", 2),
        ("weak-model", 3),
    ]
    with ResultsDB(db[1]) as database:
        page = page_data(database, database.runs(), 5)
    first = page["runs"][0]
    assert (first["model"], first["rank"], first["partial"]) == ("full-model", 1, False)
    assert page["runs"][-1]["rank"] is None and page["runs"][-1]["pack_tasks"] == 164


def test_sort_and_limit_are_validated(tmp_path: Path) -> None:
    db = db_with_runs(tmp_path)
    for args, message in (
        (["--sort", "bogus"], "unknown sort key 'bogus'"),
        (["--sort", "rewrd"], "Did you mean 'reward'"),
        (["--limit", "-3"], "--limit must be >= 1, got -3"),
        (["--limit", "0"], "--limit must be >= 1, got 0"),
    ):
        result = invoke("leaderboard", "show", *db, *args)
        assert result.exit_code == 2, (args, result.output)
        text = re.sub(r"\s+", " ", result.output)
        assert message in text and "Traceback" not in result.output, (args, result.output)
    assert "pass@1" in re.sub(r"\s+", " ", invoke("leaderboard", "show", *db, "--sort", "bogus").output)
    by_reward = json.loads(invoke("leaderboard", "show", *db, "--sort", "reward", "--json").stdout)
    assert [r["model"] for r in by_reward][:2] == ["full-model", "weak-model"]
    limited = json.loads(invoke("leaderboard", "show", *db, "--limit", "1", "--json").stdout)
    assert [r["model"] for r in limited] == ["full-model"]


def test_task_ids_sort_naturally(tmp_path: Path) -> None:
    assert sorted(TASK_IDS, key=natural_key) == [
        "HumanEval/0",
        "HumanEval/1",
        "HumanEval/2",
        "HumanEval/10",
        "HumanEval/100",
    ]
    db = db_with_runs(tmp_path)
    details = json.loads(invoke("leaderboard", "show", "full0000", *db, "--json").stdout)
    assert [t["task_id"] for t in details["tasks"]] == sorted(TASK_IDS, key=natural_key)
    shown = invoke("leaderboard", "show", "full", *db).output
    assert shown.index("HumanEval/2 ") < shown.index("HumanEval/10 ") < shown.index("HumanEval/100 ")
    with ResultsDB(db[1]) as database:
        page = page_data(database, database.runs(), 5)
    assert [t["task_id"] for t in page["runs"][0]["tasks"]] == sorted(TASK_IDS, key=natural_key)
