"""Samples files for evaluation runs: reading, strict validation, and the rows a run generates.

A samples row is a JSON object with `task_id` and exactly one of `completion` (appended to the
task's prompt/starter) or `solution` (the whole file), optionally `sample_index` (which of the n
samples of its task it is). Rows written by `codegym eval` may instead carry `generation_error`
(the sample could not be generated); a later row with the same task and index supersedes it.

Evaluation is strict where `codegym judge` is lenient: a samples file with a malformed row is
refused before anything runs, with an error naming the file, the line and the field, because a
leaderboard number computed over silently dropped rows would be wrong.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.errors import CodegymError, did_you_mean
from codegym.tasks.errors import UnknownNameError
from codegym.tasks.model import Task, TaskPack

MAX_REPORTED = 10


class EvalError(CodegymError, ValueError):
    """The evaluation cannot proceed (bad input, or an --out that belongs to another run)."""


class SamplesFileError(EvalError):
    """A samples file is malformed; the message names the file, line and field of each problem."""

    def __init__(self, path: Path, problems: list[str], total: int | None = None) -> None:
        self.path, self.problems = path, problems
        total = total if total is not None else len(problems)
        shown = problems[:MAX_REPORTED]
        more = f"\n  ... and {total - len(shown)} more" if total > len(shown) else ""
        plural = "s" if total != 1 else ""
        super().__init__(f"{path}: {total} bad row{plural}:\n  " + "\n  ".join(shown) + more)


def sample_key(row: dict[str, Any], position: int) -> tuple[str, str]:
    """Identity of a sample within its run: (task id, sample index), or its row when it has no index."""
    index = row.get("sample_index")
    return str(row.get("task_id")), str(index) if index is not None else f"row{position}"


def sha256_file(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _task_for(pack: TaskPack, task_id: str) -> Task | None:
    try:
        return pack.get(task_id)
    except UnknownNameError:
        return None


def _unknown_task(pack: TaskPack, task_id: str) -> str:
    hint = did_you_mean(task_id, [t.task_id for t in pack.tasks.values()], aside=True)
    return f"field 'task_id': unknown task {task_id!r} in pack {pack.name!r}{hint}"


def row_problem(data: Any, pack: TaskPack) -> str | None:
    """What is wrong with one parsed row ('field ...: ...'), or None when it is a usable sample."""
    if not isinstance(data, dict):
        return f"expected a JSON object, got {type(data).__name__}"
    task_id = data.get("task_id")
    if "task_id" not in data:
        return "field 'task_id': missing"
    if not isinstance(task_id, str) or not task_id:
        return f"field 'task_id': must be a non-empty string, got {task_id!r}"
    if _task_for(pack, task_id) is None:
        return _unknown_task(pack, task_id)
    index = data.get("sample_index")
    if index is not None and (not isinstance(index, int) or isinstance(index, bool) or index < 0):
        return f"field 'sample_index': must be an integer >= 0, got {index!r}"
    if isinstance(data.get("generation_error"), str):
        return None
    present = [name for name in ("completion", "solution") if name in data]
    if not present:
        return "field 'completion' (or 'solution'): missing; give the model's code in one of them"
    if len(present) == 2:
        return "fields 'completion' and 'solution': give exactly one of them, not both"
    value = data[present[0]]
    if not isinstance(value, str):
        return f"field {present[0]!r}: must be a string, got {type(value).__name__}"
    return None


def _lines(path: Path) -> Iterator[tuple[int, str]]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        for number, line in enumerate(handle, start=1):
            if line.strip():
                yield number, line.rstrip("\n")


@dataclass
class SamplesCheck:
    rows: int = 0
    tasks: dict[str, int] = field(default_factory=dict)  # task id -> samples
    generation_errors: int = 0


def validate_samples_file(path: Path, pack: TaskPack) -> SamplesCheck:
    """Check every row; raise SamplesFileError listing the bad ones (file:line: field: problem)."""
    if not path.is_file():
        raise EvalError(f"samples file {path} does not exist")
    problems: list[str] = []
    count = 0
    check = SamplesCheck()
    seen: dict[tuple[str, str], tuple[int, bool]] = {}
    for position, (number, line) in enumerate(_lines(path)):
        check.rows += 1
        try:
            data = json.loads(line)
        except json.JSONDecodeError as exc:
            problem: str | None = f"invalid JSON: {exc.msg} (column {exc.colno})"
        else:
            problem = row_problem(data, pack)
        if problem is None:
            task = pack.get(data["task_id"])
            key = (task.task_id, sample_key(data, position)[1])
            is_error = isinstance(data.get("generation_error"), str)
            earlier = seen.get(key)
            if earlier is not None and not earlier[1]:
                problem = (
                    f"field 'sample_index': sample {key[1]} of {task.task_id} "
                    f"already appears on line {earlier[0]}"
                )
            else:
                seen[key] = (number, is_error)
                check.generation_errors += is_error
        if problem is not None:
            count += 1
            if len(problems) < MAX_REPORTED:
                problems.append(f"{path}:{number}: {problem}")
    if count:
        raise SamplesFileError(path, problems, count)
    if not check.rows:
        raise EvalError(f"samples file {path} has no rows")
    for (task_id, _), _ in seen.items():
        check.tasks[task_id] = check.tasks.get(task_id, 0) + 1
    return check


def solution_code(row: dict[str, Any], task: Task | None) -> str:
    """The whole file a samples/judged row stands for ('' for rows without code)."""
    if isinstance(row.get("solution"), str):
        return row["solution"]
    if isinstance(row.get("completion"), str) and task is not None:
        return task.solution_from_completion(row["completion"])
    return ""


@dataclass
class ExistingSamples:
    """What a partly written samples.jsonl already holds (a torn last line is cut off)."""

    rows: int = 0
    done: dict[str, set[int]] = field(default_factory=dict)  # task id -> indices generated fine
    errors: int = 0  # rows that recorded a generation error (retried on resume)


def read_generated(path: Path, pack: TaskPack) -> ExistingSamples:
    """Scan a run's own samples.jsonl for resuming; repair a torn tail, refuse anything else odd."""
    existing = ExistingSamples()
    if not path.exists():
        return existing
    good_bytes = 0
    with path.open("rb") as handle:
        raw_lines = handle.readlines()
    for number, raw in enumerate(raw_lines, start=1):
        last = number == len(raw_lines)
        try:
            data = json.loads(raw) if raw.endswith(b"\n") else None
        except (json.JSONDecodeError, UnicodeDecodeError):
            data = None
        if data is None:
            if last:
                break  # torn by an interrupted write: generated again
            raise EvalError(
                f"{path}:{number}: corrupt row in the middle of the file; delete the run directory"
            )
        problem = row_problem(data, pack)
        if problem is not None or not isinstance(data.get("sample_index"), int):
            raise EvalError(
                f"{path}:{number}: {problem or 'missing sample_index'}; this is not a codegym eval run"
            )
        good_bytes += len(raw)
        existing.rows += 1
        task_id = pack.get(data["task_id"]).task_id
        if isinstance(data.get("generation_error"), str):
            existing.errors += 1
        else:
            existing.done.setdefault(task_id, set()).add(data["sample_index"])
    if good_bytes < path.stat().st_size:
        with path.open("r+b") as handle:
            handle.truncate(good_bytes)
    return existing
