"""The results database: idempotent recording, queries, forward migrations of an old database,
refusing a newer schema, clear errors."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest
import sqlalchemy as sa

from codegym.eval.results_db import (
    SCHEMA_VERSION,
    ResultsDB,
    ResultsDBError,
    default_db_path,
    migrate,
    run_metrics,
    schema_version,
)


def results(run_id: str = "run-a", model: str = "model-a", pass1: float = 0.5, pack: str = "mini") -> dict:
    return {
        "pass@1": pass1,
        "pass@10": None,
        "reward": 0.42,
        "components": {"tests": 0.5, "coverage": 0.7, "style": 0.9, "complexity": 0.8, "efficiency": None},
        "strict": {"pass@1": pass1, "pass@10": None},
        "run_id": run_id,
        "model": model,
        "mode": "model",
        "pack": {"name": pack, "version": "0.1", "hash": "ab" * 32},
        "sandbox": {"backend": "local", "image": "local:bwrap:python3.11"},
        "seed": 3,
        "generation": {"n_samples": 2, "sampling": {"temperature": 0.8}},
        "k": [1, 10],
        "n_samples": {"min": 2, "max": 2},
        "tasks": {"pack_total": 3, "selected": 3, "evaluated": 2, "missing": ["mini/c"]},
        "complete": False,
        "samples_sha256": "cd" * 32,
        "codegym_version": "0.1.0",
        "per_task": {
            "mini/a": {"n": 2, "c": 2, "pass@1": 1.0, "reward": 0.9, "statuses": {"passed": 2}},
            "mini/b": {
                "n": 2,
                "c": 0,
                "pass@1": 0.0,
                "reward": None,
                "statuses": {"failed": 1, "generation_error": 1},
            },
        },
    }


SAMPLES = [
    {
        "task_id": "mini/a",
        "sample_index": 0,
        "status": "passed",
        "passed": True,
        "tests_passed": 3,
        "tests_total": 3,
        "reward": 0.9,
        "components": {"tests": 1.0},
        "hacks": [],
        "flags": ["early_exit"],
        "code": "def a(): pass\n",
    },
    {
        "task_id": "mini/a",
        "sample_index": 1,
        "status": "passed",
        "passed": True,
        "tests_passed": 3,
        "tests_total": 3,
        "reward": 0.9,
        "components": {"tests": 1.0},
        "code": "def a(): return 1\n",
    },
    {
        "task_id": "mini/b",
        "sample_index": 0,
        "status": "failed",
        "passed": False,
        "tests_passed": 1,
        "tests_total": 3,
        "reward": 0.1,
        "components": {"tests": 0.33},
        "hacks": ["hardcoded_visible"],
        "message": "assert 1 == 2",
        "code": "x",
    },
    {
        "task_id": "mini/b",
        "sample_index": 1,
        "generation_error": "HTTP 503 after 6 attempts",
        "status": "invalid_input",
    },
]


def url(tmp_path: Path) -> str:
    return f"sqlite:///{tmp_path / 'db' / 'results.sqlite'}"


def test_record_and_query(tmp_path: Path) -> None:
    with ResultsDB(url(tmp_path)) as db:
        assert db.migrated_from == 0 and db.version == SCHEMA_VERSION
        assert db.record(results(), SAMPLES, out_dir="/runs/a") is True
        (run,) = db.runs()
        assert (
            run.run_id == "run-a"
            and run.model == "model-a"
            and run.pack == "mini"
            and run.out_dir == "/runs/a"
        )
        assert (
            run.metrics["pass@1"] == 0.5 and run.metrics["pass@10"] is None and run.metrics["reward"] == 0.42
        )
        assert run.metrics["components/efficiency"] is None and run.metrics["strict/pass@1"] == 0.5
        assert run.ks == [1, 10] and run.n_samples == 2 and run.tasks_evaluated == 2 and run.tasks_total == 3
        assert run.created_at.tzinfo is not None and run.params == {
            "n_samples": 2,
            "sampling": {"temperature": 0.8},
        }
        assert "per_task" not in run.results and run.results["k"] == [1, 10]
        tasks = {t["task_id"]: t for t in db.task_results("run-a")}
        assert tasks["mini/a"]["c"] == 2 and tasks["mini/b"]["statuses"] == {
            "failed": 1,
            "generation_error": 1,
        }
        samples = db.samples("run-a")
        assert [s["position"] for s in samples] == [0, 1, 2, 3]
        assert samples[0]["flags"] == ["early_exit"] and samples[2]["flags"] == ["hardcoded_visible"]
        assert samples[3]["status"] == "generation_error" and "HTTP 503" in samples[3]["message"]
        assert [s["sample_index"] for s in db.samples("run-a", per_task=1)] == [0, 0]
        assert len(db.samples("run-a", task_id="mini/b")) == 2
        assert db.get_run("run-").run_id == "run-a"  # unambiguous prefix


def test_recording_the_same_run_again_is_idempotent(tmp_path: Path) -> None:
    with ResultsDB(url(tmp_path)) as db:
        assert db.record(results(), SAMPLES) is True
        created = db.get_run("run-a").created_at
        assert db.record(results(pass1=0.75), SAMPLES) is False  # replaced, not duplicated
        (run,) = db.runs()
        assert run.metrics["pass@1"] == 0.75 and run.created_at == created and run.updated_at >= created
        assert len(db.samples("run-a")) == 4 and len(db.task_results("run-a")) == 2
        with db.engine.connect() as conn:
            assert conn.execute(sa.text("SELECT count(*) FROM run_metrics")).scalar() == len(
                run_metrics(results())
            )


def test_filters_prefixes_and_delete(tmp_path: Path) -> None:
    with ResultsDB(url(tmp_path)) as db:
        db.record(results("run-a"), SAMPLES)
        db.record(results("run-b", pack="other"), [])
        assert [r.run_id for r in db.runs("other")] == ["run-b"] and len(db.runs()) == 2
        with pytest.raises(ResultsDBError, match="2 runs with id 'run-'"):
            db.get_run("run-")
        with pytest.raises(ResultsDBError, match="no run with id 'zzz'"):
            db.get_run("zzz")
        assert db.delete("run-b") == "run-b" and [r.run_id for r in db.runs()] == ["run-a"]


def test_an_old_database_is_migrated_forward(tmp_path: Path) -> None:
    database = url(tmp_path)
    Path(tmp_path / "db").mkdir()
    engine = sa.create_engine(database)
    assert migrate(engine, target=1) == (0, 1)  # a database as the first schema version built it
    now = dt.datetime.now(dt.timezone.utc)
    with engine.begin() as conn:
        conn.execute(
            sa.text(
                "INSERT INTO runs (run_id, model, pack, pack_version, pack_hash, mode, created_at, updated_at,"
                " samples_sha256, sandbox_image, n_samples, tasks_evaluated, tasks_total, complete, results)"
                " VALUES ('old-run', 'old-model', 'mini', '0.1', 'h', 'samples', :now, :now, 's', 'img', 1, 1, 1, 1, '{}')"
            ),
            {"now": now},
        )
        conn.execute(sa.text("INSERT INTO run_metrics VALUES ('old-run', 'pass@1', 0.25)"))
        assert "samples" not in sa.inspect(conn).get_table_names()
    engine.dispose()
    with ResultsDB(database) as db:
        assert (db.migrated_from, db.version) == (1, SCHEMA_VERSION)
        (old,) = db.runs()
        assert old.run_id == "old-run" and old.metrics == {"pass@1": 0.25} and old.codegym_version is None
        assert db.samples("old-run") == []
        db.record(results("new-run"), SAMPLES)
        assert len(db.samples("new-run")) == 4
        with db.engine.connect() as conn:
            assert schema_version(conn) == SCHEMA_VERSION
            assert conn.execute(sa.text("SELECT count(*) FROM schema_version")).scalar() == 1
    with ResultsDB(database) as db:  # opening a current database changes nothing
        assert db.migrated_from == SCHEMA_VERSION and len(db.runs()) == 2


def test_a_newer_schema_is_refused(tmp_path: Path) -> None:
    database = url(tmp_path)
    ResultsDB(database).close()
    engine = sa.create_engine(database)
    with engine.begin() as conn:
        conn.execute(sa.text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION + 1})
    engine.dispose()
    with pytest.raises(ResultsDBError, match="newer than this codegym understands"):
        ResultsDB(database)


def test_bad_urls_are_clear_errors(tmp_path: Path) -> None:
    with pytest.raises(ResultsDBError, match="not a database URL"):
        ResultsDB("results.sqlite")
    with pytest.raises(ResultsDBError, match="cannot open the results database"):
        ResultsDB("nosuchdialect://x/y")


def test_default_location() -> None:
    assert default_db_path(Path("/data")) == Path("/data/codegym/results.sqlite")
    assert default_db_path().parts[-4:] == (".local", "share", "codegym", "results.sqlite")
