"""Judging a samples file: JSONL rows in, judged JSONL rows out — incremental, in input order, resumable.

Each input row has `task_id` and either `completion` (appended to the task's prompt/starter) or
`solution` (the whole file). Each output row keeps the input fields and adds the verdict. Rows
that cannot be judged (bad JSON, unknown task, missing fields) get `status: invalid_input` and an
`error`, and the batch goes on.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import time
from collections import Counter, deque
from collections.abc import Callable, Iterator
from concurrent.futures import Future, ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from codegym.errors import CodegymError, Setting
from codegym.eval import outputs
from codegym.eval.outputs import check_output_file
from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecResult, TestOutcome, TestResult, program_problem
from codegym.tasks.errors import UnknownNameError
from codegym.tasks.model import Task, TaskPack

if TYPE_CHECKING:  # the reward's modules load only when a reward is asked for (`judge --no-reward`)
    from codegym.reward.scoring import RewardJudge, ScoredSample

INVALID_INPUT = "invalid_input"
CHUNKS_IN_FLIGHT = 3


class JudgeError(CodegymError, RuntimeError):
    """The run cannot proceed (e.g. the output file holds another run's rows); nothing was overwritten."""


@dataclass(frozen=True)
class Sample:
    row: int
    fields: dict[str, Any]
    digest: str
    task: Task | None = None
    code: str = ""
    error: str = ""


@dataclass
class JudgeSummary:
    total: int = 0
    resumed: int = 0
    judged: int = 0
    statuses: Counter[str] = field(default_factory=Counter)
    passed: int = 0
    seconds: float = 0.0

    @property
    def valid(self) -> int:
        """Rows judged in this run that were not invalid input."""
        return self.judged - self.statuses.get(INVALID_INPUT, 0)

    @property
    def rows_per_second(self) -> float:
        return self.judged / self.seconds if self.seconds > 0 else 0.0


def _digest(line: str) -> str:
    return hashlib.sha256(line.encode("utf-8")).hexdigest()[:16]


def parse_sample(row: int, line: str, pack: TaskPack) -> Sample:
    """Validate one input line; problems become a Sample with `error` set (never an exception)."""
    digest = _digest(line)
    try:
        data = json.loads(line)
    except json.JSONDecodeError as exc:
        return Sample(row, {}, digest, error=f"line {row + 1}: invalid JSON: {exc}")
    if not isinstance(data, dict):
        return Sample(
            row, {}, digest, error=f"line {row + 1}: expected a JSON object, got {type(data).__name__}"
        )
    task_id = data.get("task_id")
    if not isinstance(task_id, str) or not task_id:
        return Sample(row, data, digest, error=f"line {row + 1}: field 'task_id' is missing or not a string")
    has_completion, has_solution = (
        isinstance(data.get("completion"), str),
        isinstance(data.get("solution"), str),
    )
    if has_completion == has_solution:
        problem = "both" if has_completion else "neither"
        return Sample(
            row,
            data,
            digest,
            error=f"line {row + 1}: give exactly one of 'completion' or 'solution' (string); got {problem}",
        )
    try:
        task = pack.get(task_id)
    except UnknownNameError as exc:
        return Sample(row, data, digest, error=f"line {row + 1}: {exc}")
    code = task.solution_from_completion(data["completion"]) if has_completion else data["solution"]
    problem = program_problem(code)
    if problem:
        return Sample(row, data, digest, error=f"line {row + 1}: {problem}")
    return Sample(row, data, digest, task=task, code=code)


def _read_samples(path: Path, pack: TaskPack, skip: int) -> Iterator[Sample]:
    with path.open(encoding="utf-8", errors="replace") as handle:
        row = 0
        for line in handle:
            if not line.strip():
                continue
            if row >= skip:
                yield parse_sample(row, line.rstrip("\n"), pack)
            row += 1


def _sample_digests(path: Path, count: int) -> list[str]:
    digests: list[str] = []
    with path.open(encoding="utf-8", errors="replace") as handle:
        for line in handle:
            if len(digests) >= count:
                break
            if line.strip():
                digests.append(_digest(line.rstrip("\n")))
    return digests


def check_output_path(samples_path: Path, out_path: Path) -> None:
    """Refuse an output file that is the samples file, a folder, unwritable, or a file that is not a judge
    output (codegym never overwrites a file it did not write)."""
    check_output_file(
        out_path, command="codegym judge", is_ours=_is_judge_row, inputs={"samples file": samples_path}
    )


def _is_judge_row(line: bytes) -> bool:
    if not line.endswith(b"\n"):  # a first row torn by a kill: ours if it starts like one
        return line.startswith(b"{") and b'"sample_sha256"' in line
    try:
        row = json.loads(line)
    except json.JSONDecodeError:
        return False
    return isinstance(row, dict) and row.get("row") == 0 and "sample_sha256" in row


def output_lock(out_path: Path) -> contextlib.AbstractContextManager[None]:
    """One writer per output file: a second judge on the same file stops with the first one's pid."""
    return outputs.output_lock(
        out_path.with_name(out_path.name + ".lock"),
        target=out_path,
        command="codegym judge",
        setting="out_path",
    )


def resume_point(samples_path: Path, out_path: Path) -> int:
    """How many leading rows of `out_path` are complete results for `samples_path`.

    A torn last line (a run killed mid-write) is cut off; rows that belong to a different samples
    file stop the run with JudgeError instead of being overwritten.
    """
    if not out_path.exists():
        return 0
    good_bytes = 0
    rows: list[dict[str, Any]] = []
    with out_path.open("rb") as handle:
        for raw in handle:
            if not raw.endswith(b"\n"):
                break
            try:
                row = json.loads(raw)
            except json.JSONDecodeError:
                break
            if not isinstance(row, dict) or row.get("row") != len(rows):
                break
            rows.append(row)
            good_bytes += len(raw)
    expected = _sample_digests(samples_path, len(rows))
    for index, row in enumerate(rows):
        if index >= len(expected) or row.get("sample_sha256") != expected[index]:
            raise JudgeError(
                f"{out_path} already holds results for a different samples file (row {index} does not match "
                f"{samples_path}); choose another ",
                Setting("out_path"),
                " or delete it",
            )
    if good_bytes < out_path.stat().st_size:
        with out_path.open("r+b") as handle:
            handle.truncate(good_bytes)
    return len(rows)


def result_fields(result: ExecResult) -> dict[str, Any]:
    return {
        "status": result.status.value,
        "passed": result.passed,
        "tests_passed": result.tests_passed,
        "tests_total": result.tests_total,
        "duration_s": round(result.wall_s, 4),
        "cpu_s": round(result.cpu_s, 4),
        "message": result.message,
        "flags": list(result.flags),
        "test_results": [_test_fields(t) for t in result.tests],
        "backend": result.backend,
        "image": result.image,
    }


def _test_fields(test: TestResult) -> dict[str, Any]:
    """One test's (or case's) outcome; a failed one says why, and a case shows its heads."""
    fields: dict[str, Any] = {"id": test.test_id, "outcome": test.outcome.value}
    if test.outcome is not TestOutcome.PASSED and test.message:
        fields["message"] = test.message[:500]
    if test.input_head or test.expected_head or test.actual_head:
        fields.update(input=test.input_head, expected=test.expected_head, actual=test.actual_head)
    return fields


def _invalid_row(sample: Sample) -> dict[str, Any]:
    return {
        **sample.fields,
        "row": sample.row,
        "sample_sha256": sample.digest,
        "status": INVALID_INPUT,
        "passed": False,
        "tests_passed": 0,
        "tests_total": 0,
        "duration_s": 0.0,
        "error": sample.error,
    }


def _base_row(sample: Sample, pack: TaskPack) -> dict[str, Any]:
    assert sample.task is not None
    return {
        **sample.fields,
        "row": sample.row,
        "sample_sha256": sample.digest,
        "pack": sample.task.pack,
        "pack_version": pack.version,
        "pack_hash": pack.content_hash[:16],
    }


def reward_fields(scored: ScoredSample) -> dict[str, Any]:
    """Verdict fields from a reward breakdown (hidden tests only), plus the reward itself."""
    breakdown = scored.breakdown
    fields = (
        result_fields(scored.result)
        if scored.result is not None
        else {
            "duration_s": round(float(breakdown.details.get("wall_s") or 0.0), 4),
            "message": breakdown.details.get("message", ""),
        }
    )
    fields.update(
        {
            "status": breakdown.status,
            "passed": breakdown.passed,
            "tests_passed": breakdown.tests_passed,
            "tests_total": breakdown.tests_total,
            "reward": breakdown.total,
            "components": dict(breakdown.components),
            "hacks": list(breakdown.flags),
            "cached": breakdown.cached,
        }
    )
    if breakdown.visible_total is not None:
        fields["visible_passed"], fields["visible_total"] = breakdown.visible_passed, breakdown.visible_total
    if isinstance(breakdown.details.get("failed_tests"), list):  # the hidden tests, also on a cache hit
        fields["failed_tests"] = breakdown.details["failed_tests"]
    return fields


def _judge_chunk(
    samples: list[Sample], pack: TaskPack, backend: SandboxBackend, reward: RewardJudge | None
) -> list[dict[str, Any]]:
    valid = [s for s in samples if not s.error]
    verdicts: list[dict[str, Any]]
    if reward is not None:
        verdicts = [
            reward_fields(scored) for scored in reward.score_many([(s.task, s.code, None) for s in valid])
        ]
    else:
        results = backend.execute_many([request_for_task(s.task, s.code) for s in valid])  # type: ignore[arg-type]
        verdicts = [result_fields(result) for result in results]
    by_row = {s.row: {**_base_row(s, pack), **v} for s, v in zip(valid, verdicts, strict=True)}
    return [by_row[s.row] if not s.error else _invalid_row(s) for s in samples]


def judge_samples_file(
    samples_path: Path,
    pack: TaskPack,
    backend: SandboxBackend,
    out_path: Path,
    *,
    reward: RewardJudge | None = None,
    chunk_size: int = 0,
    on_row: Callable[[dict[str, Any]], None] | None = None,
    resume: bool = True,
) -> JudgeSummary:
    """Judge every row of `samples_path` into `out_path`; returns counts and throughput.

    Rows are judged in chunks (one sandbox batch, and with `reward` one ruff run, per chunk) with
    CHUNKS_IN_FLIGHT chunks in flight, and written in input order as each chunk completes.
    """
    if not samples_path.is_file():
        raise JudgeError(f"samples file {samples_path} does not exist")
    check_output_path(samples_path, out_path)
    with output_lock(out_path):
        return _judge_into(samples_path, pack, backend, out_path, reward, chunk_size, on_row, resume)


def _judge_into(
    samples_path: Path,
    pack: TaskPack,
    backend: SandboxBackend,
    out_path: Path,
    reward: RewardJudge | None,
    chunk_size: int,
    on_row: Callable[[dict[str, Any]], None] | None,
    resume: bool,
) -> JudgeSummary:
    skip = resume_point(samples_path, out_path) if resume else 0
    summary = JudgeSummary(resumed=skip, total=skip)
    # chunks big enough that one ruff run and one sandbox batch cost little per row, and three in
    # flight, so the workers never wait while a chunk's slowest row finishes or its rows are scored
    size = chunk_size or max(16, 16 * int(getattr(backend, "workers", 2)))
    out_path.parent.mkdir(parents=True, exist_ok=True)
    started = time.monotonic()
    pool = ThreadPoolExecutor(max_workers=CHUNKS_IN_FLIGHT, thread_name_prefix="codegym-judge")
    with out_path.open("a" if skip else "w", encoding="utf-8") as out:
        pending: deque[Future[list[dict[str, Any]]]] = deque()

        def write(rows: list[dict[str, Any]]) -> None:
            for row in rows:
                line = json.dumps(row, ensure_ascii=False)
                try:
                    line.encode("utf-8")
                except UnicodeEncodeError:  # a lone surrogate in the row's own fields: keep it escaped
                    line = json.dumps(row)
                out.write(line + "\n")
                out.flush()
                summary.total += 1
                summary.judged += 1
                summary.statuses[row["status"]] += 1
                summary.passed += bool(row.get("passed"))
                if on_row is not None:
                    on_row(row)

        writing = False  # a chunk's rows are being written: an interrupt there ends the file

        def write_first() -> None:
            nonlocal writing
            rows = pending[0].result()
            writing = True
            write(rows)
            pending.popleft()
            writing = False

        try:
            chunk: list[Sample] = []
            for sample in _read_samples(samples_path, pack, skip):
                chunk.append(sample)
                if len(chunk) >= size:
                    pending.append(pool.submit(_judge_chunk, chunk, pack, backend, reward))
                    chunk = []
                while len(pending) >= CHUNKS_IN_FLIGHT or (pending and pending[0].done()):
                    write_first()
            if chunk:
                pending.append(pool.submit(_judge_chunk, chunk, pack, backend, reward))
            while pending:
                write_first()
        except BaseException:
            # Ctrl-C, or a chunk that failed: while waiting for a chunk, the chunks already judged in
            # full are written, in order, after the rows before them (an interrupt while writing
            # writes nothing more: the rows stay a prefix of the input, the resume's starting point);
            # the chunks still running are not waited for (an interrupted judge waited up to three
            # chunks' time, ~100 s for slow samples): they end when the caller closes the backend.
            while not writing and pending and _succeeded(pending[0]):
                write_first()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
    pool.shutdown()
    summary.seconds = time.monotonic() - started
    return summary


def _succeeded(future: Future[Any]) -> bool:
    """Whether `future` is done with a result (not cancelled, no exception)."""
    return future.done() and not future.cancelled() and future.exception() is None


def count_rows(samples_path: Path) -> int:
    with samples_path.open(encoding="utf-8", errors="replace") as handle:
        return sum(1 for line in handle if line.strip())
