"""The results database: every evaluation run, its metrics, per-task results and judged samples.

SQLite by default; any SQLAlchemy URL (e.g. postgresql+psycopg://...) works, through SQLAlchemy 2
Core with portable types only. The schema is versioned: `schema_version` holds the version, and
`MIGRATIONS` lists the forward steps; opening a database applies the missing ones in one
transaction. Each step defines its own tables (never imports the current ones) so that an old
database is upgraded exactly as it was built.

A run is keyed by its run id (a hash of model, pack name + hash, generation parameters, reward
config and the samples' digest); recording the same run again replaces its rows, so duplicate
recordings are idempotent.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Connection, Engine

from codegym.errors import CodegymError, Setting

SCHEMA_VERSION = 3

# -- migrations ---------------------------------------------------------------------------------


def _migration_1(conn: Connection) -> None:
    """Runs, their metrics and per-task results."""
    meta = sa.MetaData()
    sa.Table(
        "runs",
        meta,
        sa.Column("run_id", sa.String(64), primary_key=True),
        sa.Column("model", sa.String(500), nullable=False),
        sa.Column("pack", sa.String(200), nullable=False, index=True),
        sa.Column("pack_version", sa.String(100), nullable=False),
        sa.Column("pack_hash", sa.String(64), nullable=False),
        sa.Column("mode", sa.String(20), nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("out_dir", sa.Text, nullable=True),
        sa.Column("samples_sha256", sa.String(64), nullable=False),
        sa.Column("seed", sa.Integer, nullable=True),
        sa.Column("sandbox_image", sa.String(300), nullable=False),
        sa.Column("n_samples", sa.Integer, nullable=False),
        sa.Column("tasks_evaluated", sa.Integer, nullable=False),
        sa.Column("tasks_total", sa.Integer, nullable=False),
        sa.Column("complete", sa.Boolean, nullable=False),
        sa.Column("params", sa.JSON, nullable=True),
        sa.Column("results", sa.JSON, nullable=False),
    )
    sa.Table(
        "run_metrics",
        meta,
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("name", sa.String(100), primary_key=True),
        sa.Column("value", sa.Float, nullable=True),
    )
    sa.Table(
        "task_results",
        meta,
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("task_id", sa.String(300), primary_key=True),
        sa.Column("n", sa.Integer, nullable=False),
        sa.Column("c", sa.Integer, nullable=False),
        sa.Column("reward", sa.Float, nullable=True),
        sa.Column("details", sa.JSON, nullable=False),
    )
    meta.create_all(conn)


def _migration_2(conn: Connection) -> None:
    """Judged samples (code and breakdown, for the drill-down) and the codegym version of each run."""
    meta = sa.MetaData()
    sa.Table("runs", meta, sa.Column("run_id", sa.String(64), primary_key=True))  # exists: referenced only
    samples = sa.Table(
        "samples",
        meta,
        sa.Column("run_id", sa.String(64), sa.ForeignKey("runs.run_id"), primary_key=True),
        sa.Column("position", sa.Integer, primary_key=True),
        sa.Column("task_id", sa.String(300), nullable=False),
        sa.Column("sample_index", sa.Integer, nullable=True),
        sa.Column("status", sa.String(40), nullable=False),
        sa.Column("passed", sa.Boolean, nullable=False),
        sa.Column("tests_passed", sa.Integer, nullable=False),
        sa.Column("tests_total", sa.Integer, nullable=False),
        sa.Column("reward", sa.Float, nullable=True),
        sa.Column("components", sa.JSON, nullable=True),
        sa.Column("flags", sa.JSON, nullable=True),
        sa.Column("message", sa.Text, nullable=True),
        sa.Column("code", sa.Text, nullable=False),
        sa.Index("ix_samples_run_task", "run_id", "task_id"),
    )
    samples.create(conn)
    conn.execute(sa.text("ALTER TABLE runs ADD COLUMN codegym_version VARCHAR(40)"))


def _migration_3(conn: Connection) -> None:
    """Which tests each judged sample failed (id, outcome, message), for the drill-down."""
    conn.execute(sa.text("ALTER TABLE samples ADD COLUMN failed_tests JSON"))


MIGRATIONS: tuple[Callable[[Connection], None], ...] = (_migration_1, _migration_2, _migration_3)
assert len(MIGRATIONS) == SCHEMA_VERSION

_VERSION_TABLE = sa.Table("schema_version", sa.MetaData(), sa.Column("version", sa.Integer, nullable=False))


def schema_version(conn: Connection) -> int:
    if not sa.inspect(conn).has_table("schema_version"):
        return 0
    value = conn.execute(sa.select(sa.func.max(_VERSION_TABLE.c.version))).scalar()
    return int(value or 0)


def migrate(engine: Engine, target: int = SCHEMA_VERSION) -> tuple[int, int]:
    """Apply the missing migrations up to `target`; returns (version before, version after)."""
    with engine.begin() as conn:
        before = schema_version(conn)
        if before > SCHEMA_VERSION:
            raise ResultsDBError(
                f"the results database has schema version {before}, newer than this codegym "
                f"understands ({SCHEMA_VERSION}); upgrade codegym"
            )
        if before == 0:
            _VERSION_TABLE.create(conn, checkfirst=True)
        for version in range(before + 1, target + 1):
            MIGRATIONS[version - 1](conn)
            conn.execute(sa.delete(_VERSION_TABLE))
            conn.execute(sa.insert(_VERSION_TABLE).values(version=version))
        return before, max(before, target)


# -- the current schema (what queries use) ------------------------------------------------------
_META = sa.MetaData()
RUNS = sa.Table(
    "runs",
    _META,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("model", sa.String(500)),
    sa.Column("pack", sa.String(200)),
    sa.Column("pack_version", sa.String(100)),
    sa.Column("pack_hash", sa.String(64)),
    sa.Column("mode", sa.String(20)),
    sa.Column("created_at", sa.DateTime(timezone=True)),
    sa.Column("updated_at", sa.DateTime(timezone=True)),
    sa.Column("out_dir", sa.Text),
    sa.Column("samples_sha256", sa.String(64)),
    sa.Column("seed", sa.Integer),
    sa.Column("sandbox_image", sa.String(300)),
    sa.Column("n_samples", sa.Integer),
    sa.Column("tasks_evaluated", sa.Integer),
    sa.Column("tasks_total", sa.Integer),
    sa.Column("complete", sa.Boolean),
    sa.Column("params", sa.JSON),
    sa.Column("results", sa.JSON),
    sa.Column("codegym_version", sa.String(40)),
)
METRICS = sa.Table(
    "run_metrics",
    _META,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("name", sa.String(100), primary_key=True),
    sa.Column("value", sa.Float),
)
TASKS = sa.Table(
    "task_results",
    _META,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("task_id", sa.String(300), primary_key=True),
    sa.Column("n", sa.Integer),
    sa.Column("c", sa.Integer),
    sa.Column("reward", sa.Float),
    sa.Column("details", sa.JSON),
)
SAMPLES = sa.Table(
    "samples",
    _META,
    sa.Column("run_id", sa.String(64), primary_key=True),
    sa.Column("position", sa.Integer, primary_key=True),
    sa.Column("task_id", sa.String(300)),
    sa.Column("sample_index", sa.Integer),
    sa.Column("status", sa.String(40)),
    sa.Column("passed", sa.Boolean),
    sa.Column("tests_passed", sa.Integer),
    sa.Column("tests_total", sa.Integer),
    sa.Column("reward", sa.Float),
    sa.Column("components", sa.JSON),
    sa.Column("flags", sa.JSON),
    sa.Column("message", sa.Text),
    sa.Column("code", sa.Text),
    sa.Column("failed_tests", sa.JSON),
)


class ResultsDBError(CodegymError, ValueError):
    """The database cannot be used (unreachable, newer schema, unknown run)."""


def default_db_path(data_home: Path | None = None) -> Path:
    """~/.local/share/codegym/results.sqlite (or under `data_home`, e.g. $XDG_DATA_HOME, when given)."""
    base = data_home if data_home is not None else Path.home() / ".local" / "share"
    return base / "codegym" / "results.sqlite"


def default_db_url(data_home: Path | None = None) -> str:
    return f"sqlite:///{default_db_path(data_home)}"


def _utc(value: dt.datetime | None) -> dt.datetime | None:
    if value is None:
        return None
    return (
        value.replace(tzinfo=dt.timezone.utc) if value.tzinfo is None else value.astimezone(dt.timezone.utc)
    )


def _number(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


@dataclass(frozen=True)
class RunRecord:
    run_id: str
    model: str
    pack: str
    pack_version: str
    pack_hash: str
    mode: str
    created_at: dt.datetime
    updated_at: dt.datetime
    out_dir: str | None
    n_samples: int
    tasks_evaluated: int
    tasks_total: int
    complete: bool
    sandbox_image: str
    seed: int | None
    metrics: dict[str, float | None] = field(default_factory=dict)
    params: dict[str, Any] | None = None
    results: dict[str, Any] = field(default_factory=dict)
    codegym_version: str | None = None

    @property
    def pack_tasks(self) -> int:
        """Tasks in the whole pack (a --limit run selects fewer)."""
        recorded = (self.results.get("tasks") or {}).get("pack_total")
        return int(recorded) if isinstance(recorded, int) else self.tasks_total

    @property
    def partial(self) -> bool:
        """Not a full evaluation on the pack: fewer tasks than the pack, errors or too few samples.
        Partial runs are not ranked against complete ones unless asked for."""
        return not self.complete or self.tasks_evaluated < self.pack_tasks

    @property
    def ks(self) -> list[int]:
        return sorted(int(name[5:]) for name in self.metrics if name.startswith("pass@"))

    def to_dict(self) -> dict[str, Any]:
        return {
            "run_id": self.run_id,
            "model": self.model,
            "pack": self.pack,
            "pack_version": self.pack_version,
            "pack_hash": self.pack_hash,
            "mode": self.mode,
            "created_at": self.created_at.isoformat(),
            "updated_at": self.updated_at.isoformat(),
            "out_dir": self.out_dir,
            "n_samples": self.n_samples,
            "tasks_evaluated": self.tasks_evaluated,
            "tasks_total": self.tasks_total,
            "complete": self.complete,
            "partial": self.partial,
            "pack_tasks": self.pack_tasks,
            "sandbox_image": self.sandbox_image,
            "seed": self.seed,
            "metrics": dict(self.metrics),
            "params": self.params,
            "codegym_version": self.codegym_version,
        }


def run_metrics(results: dict[str, Any]) -> dict[str, float | None]:
    """The sortable numbers of a results.json: pass@k, strict pass@k, reward, components."""
    metrics: dict[str, float | None] = {}
    for key, value in results.items():
        if key.startswith("pass@"):
            metrics[key] = _number(value)
    for key, value in (results.get("strict") or {}).items():
        metrics[f"strict/{key}"] = _number(value)
    metrics["reward"] = _number(results.get("reward"))
    for name, value in (results.get("components") or {}).items():
        metrics[f"components/{name}"] = _number(value)
    return metrics


class ResultsDB:
    """Open (and migrate) a results database by SQLAlchemy URL."""

    def __init__(self, url: str) -> None:
        self.url = url
        try:
            parsed = sa.engine.make_url(url)
        except sa.exc.ArgumentError as exc:
            raise ResultsDBError(
                Setting("database_url"),
                f" {url!r} is not a database URL (e.g. sqlite:///runs/results.sqlite)",
            ) from exc
        if parsed.get_backend_name() == "sqlite" and parsed.database not in (None, "", ":memory:"):
            Path(parsed.database).expanduser().parent.mkdir(parents=True, exist_ok=True)
        try:
            self.engine = sa.create_engine(parsed)
            self.migrated_from, self.version = migrate(self.engine)
        except ResultsDBError:
            raise
        except (sa.exc.SQLAlchemyError, ImportError) as exc:
            raise ResultsDBError(f"cannot open the results database {parsed!r}: {exc}") from exc

    def close(self) -> None:
        self.engine.dispose()

    def __enter__(self) -> ResultsDB:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------------
    def record(
        self,
        results: Mapping[str, Any],
        samples: Sequence[dict[str, Any]] = (),
        *,
        out_dir: str | None = None,
    ) -> bool:
        """Store (or replace) one run (`EvalResults`, or a results.json mapping); returns True when the
        run was new."""
        results = results.to_dict() if hasattr(results, "to_dict") else dict(results)
        run_id = str(results["run_id"])
        now = dt.datetime.now(dt.timezone.utc)
        summary = {k: v for k, v in results.items() if k != "per_task"}
        n = results.get("n_samples") or {}
        tasks = results.get("tasks") or {}
        pack = results.get("pack") or {}
        with self.engine.begin() as conn:
            created = conn.execute(sa.select(RUNS.c.created_at).where(RUNS.c.run_id == run_id)).scalar()
            for table in (SAMPLES, TASKS, METRICS, RUNS):
                conn.execute(sa.delete(table).where(table.c.run_id == run_id))
            conn.execute(
                sa.insert(RUNS).values(
                    run_id=run_id,
                    model=str(results.get("model")),
                    pack=str(pack.get("name")),
                    pack_version=str(pack.get("version")),
                    pack_hash=str(pack.get("hash")),
                    mode=str(results.get("mode")),
                    created_at=created or now,
                    updated_at=now,
                    out_dir=out_dir,
                    samples_sha256=str(results.get("samples_sha256")),
                    seed=results.get("seed"),
                    sandbox_image=str((results.get("sandbox") or {}).get("image") or ""),
                    n_samples=int(n.get("max") or 0),
                    tasks_evaluated=int(tasks.get("evaluated") or 0),
                    tasks_total=int(tasks.get("selected") or tasks.get("pack_total") or 0),
                    complete=bool(results.get("complete")),
                    params=results.get("generation"),
                    results=summary,
                    codegym_version=results.get("codegym_version"),
                )
            )
            metrics = run_metrics(results)
            if metrics:
                conn.execute(
                    sa.insert(METRICS),
                    [{"run_id": run_id, "name": k, "value": v} for k, v in metrics.items()],
                )
            per_task = results.get("per_task") or {}
            if per_task:
                conn.execute(
                    sa.insert(TASKS),
                    [
                        {
                            "run_id": run_id,
                            "task_id": task_id,
                            "n": int(d.get("n", 0)),
                            "c": int(d.get("c", 0)),
                            "reward": _number(d.get("reward")),
                            "details": d,
                        }
                        for task_id, d in per_task.items()
                    ],
                )
            rows = [_sample_row(run_id, position, s) for position, s in enumerate(samples)]
            for start in range(0, len(rows), 500):
                conn.execute(sa.insert(SAMPLES), rows[start : start + 500])
        return created is None

    def delete(self, run_id: str) -> str:
        run = self.get_run(run_id)
        with self.engine.begin() as conn:
            for table in (SAMPLES, TASKS, METRICS, RUNS):
                conn.execute(sa.delete(table).where(table.c.run_id == run.run_id))
        return run.run_id

    # -- reading ---------------------------------------------------------------------------
    def runs(self, pack: str | None = None) -> list[RunRecord]:
        query = sa.select(RUNS).order_by(RUNS.c.created_at, RUNS.c.run_id)
        if pack:
            query = query.where(RUNS.c.pack == pack)
        with self.engine.connect() as conn:
            rows = conn.execute(query).mappings().all()
            metrics: dict[str, dict[str, float | None]] = {}
            ids = [r["run_id"] for r in rows]
            for start in range(0, len(ids), 500):
                chunk = ids[start : start + 500]
                for m in conn.execute(sa.select(METRICS).where(METRICS.c.run_id.in_(chunk))).mappings():
                    metrics.setdefault(m["run_id"], {})[m["name"]] = m["value"]
        return [self._record(r, metrics.get(r["run_id"], {})) for r in rows]

    def get_run(self, run_id: str) -> RunRecord:
        """A run by id or unambiguous id prefix."""
        with self.engine.connect() as conn:
            rows = (
                conn.execute(sa.select(RUNS).where(RUNS.c.run_id.startswith(run_id, autoescape=True)))
                .mappings()
                .all()
            )
            if len(rows) != 1:
                what = "no run" if not rows else f"{len(rows)} runs"
                raise ResultsDBError(f"{what} with id {run_id!r} in {self.url}")
            metrics = {
                m["name"]: m["value"]
                for m in conn.execute(
                    sa.select(METRICS).where(METRICS.c.run_id == rows[0]["run_id"])
                ).mappings()
            }
        return self._record(rows[0], metrics)

    def task_results(self, run_id: str) -> list[dict[str, Any]]:
        with self.engine.connect() as conn:
            rows = conn.execute(sa.select(TASKS).where(TASKS.c.run_id == run_id)).mappings().all()
        return [
            {"task_id": r["task_id"], "n": r["n"], "c": r["c"], "reward": r["reward"], **r["details"]}
            for r in rows
        ]

    def samples(
        self, run_id: str, *, task_id: str | None = None, per_task: int | None = None
    ) -> list[dict[str, Any]]:
        """Judged samples of a run in order; `per_task` keeps the first that many of each task."""
        query = sa.select(SAMPLES).where(SAMPLES.c.run_id == run_id).order_by(SAMPLES.c.position)
        if task_id is not None:
            query = query.where(SAMPLES.c.task_id == task_id)
        kept: dict[str, int] = {}
        out = []
        with self.engine.connect() as conn:
            for row in conn.execute(query).mappings():
                if per_task is not None:
                    if kept.get(row["task_id"], 0) >= per_task:
                        continue
                    kept[row["task_id"]] = kept.get(row["task_id"], 0) + 1
                out.append({k: v for k, v in row.items() if k != "run_id"})
        return out

    @staticmethod
    def _record(row: Any, metrics: dict[str, float | None]) -> RunRecord:
        return RunRecord(
            run_id=row["run_id"],
            model=row["model"],
            pack=row["pack"],
            pack_version=row["pack_version"],
            pack_hash=row["pack_hash"],
            mode=row["mode"],
            created_at=_utc(row["created_at"]),  # type: ignore[arg-type]
            updated_at=_utc(row["updated_at"]),  # type: ignore[arg-type]
            out_dir=row["out_dir"],
            n_samples=row["n_samples"],
            tasks_evaluated=row["tasks_evaluated"],
            tasks_total=row["tasks_total"],
            complete=bool(row["complete"]),
            sandbox_image=row["sandbox_image"],
            seed=row["seed"],
            metrics=metrics,
            params=row["params"],
            results=row["results"] or {},
            codegym_version=row["codegym_version"],
        )


def _sample_row(run_id: str, position: int, sample: dict[str, Any]) -> dict[str, Any]:
    flags = sorted({*(sample.get("hacks") or []), *(sample.get("flags") or [])})
    message = sample.get("generation_error") or sample.get("error") or sample.get("message") or ""
    status = (
        "generation_error" if isinstance(sample.get("generation_error"), str) else str(sample.get("status"))
    )
    components = sample.get("components")
    return {
        "run_id": run_id,
        "position": position,
        "task_id": str(sample.get("task_id")),
        "sample_index": sample.get("sample_index") if isinstance(sample.get("sample_index"), int) else None,
        "status": status,
        "passed": bool(sample.get("passed")),
        "tests_passed": int(sample.get("tests_passed") or 0),
        "tests_total": int(sample.get("tests_total") or 0),
        "reward": _number(sample.get("reward")),
        "components": components if isinstance(components, dict) else None,
        "flags": flags,
        "message": str(message)[:2000],
        "code": str(sample.get("code") or ""),
        "failed_tests": failed_tests(sample),
    }


MAX_FAILED_TESTS = 50


def failed_tests(sample: dict[str, Any]) -> list[dict[str, str]]:
    """The hidden tests a judged row did not pass: id, outcome and (when known) why.

    Reward rows name them in `failed_tests` (also on a cache hit); their `test_results`, when the
    sandbox ran, add the messages. Rows judged without the reward have `test_results` only."""
    from codegym.reward.scoring import VISIBLE_PREFIX

    results = [t for t in sample.get("test_results") or [] if isinstance(t, dict) and "id" in t]
    messages = {str(t["id"]): str(t.get("message") or "") for t in results}
    named = sample.get("failed_tests")
    if isinstance(named, list):
        failed = [t for t in named if isinstance(t, dict) and "id" in t]
    else:
        failed = [
            t for t in results if t.get("outcome") != "passed" and not str(t["id"]).startswith(VISIBLE_PREFIX)
        ]
    out = []
    for test in failed[:MAX_FAILED_TESTS]:
        entry = {"id": str(test["id"]), "outcome": str(test.get("outcome") or "failed")}
        message = messages.get(entry["id"]) or str(test.get("message") or "")
        if message:
            entry["message"] = message[:300]
        out.append(entry)
    return out


def iter_metric_names(records: Iterable[RunRecord]) -> list[str]:
    names: set[str] = set()
    for record in records:
        names.update(record.metrics)
    return sorted(names)
