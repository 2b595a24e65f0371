"""What every dataset reader shares: reading rows from local files, the reader interface, and the
prompt text of input/output tasks.

A reader turns one row of a published dataset (APPS, CodeContests, LiveCodeBench, MBPP, ...) into a
`Task`, exactly as the dataset's own harness would judge it. Rows that cannot be judged (no tests,
Python 2 only references, files instead of stdin) raise `SkipRow` with the reason: an import
reports them and leaves them out; it never keeps a problem silently broken.
"""

from __future__ import annotations

import gzip
import json
from collections.abc import Callable, Iterator, Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym.tasks.cases import Case, CaseSuite
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats.call_examples import Example, call_examples, shows_call
from codegym.tasks.formats.stdio_examples import StdioStatement
from codegym.tasks.model import Limits, Task, TestSuite

SOLUTION_FILE = "solution.py"


class SkipRow(Exception):
    """This row cannot be judged as published; the message says why (reported by `tasks import`)."""


@dataclass(frozen=True)
class RowContext:
    """Where a row comes from and the pack-wide settings a reader needs."""

    pack: str
    file: str
    limits: Limits = field(default_factory=Limits)
    checker: str | None = None  # source of the pack's checker.py (stdio problems with many answers)
    options: Mapping[str, Any] = field(default_factory=dict)  # pack.yaml `options:` (format specific)
    line: int | None = None

    def error(self, message: str, *, task: str | None = None, field: str | None = None) -> TaskPackError:
        where = f"{self.file}:{self.line}" if self.line is not None else self.file
        return TaskPackError(message, pack=self.pack, task=task, file=where, field=field)


@dataclass(frozen=True)
class DatasetFormat:
    """A published dataset schema codegym reads.

    `task_from_row` builds the Task (raising SkipRow or a TaskPackError from `context.error`);
    `row_id` is the dataset's own id as a string; `read_source` reads a SOURCE given to `tasks import`
    (defaults to `read_rows`: one file); `prepare_rows` runs once at import on the kept rows (EvalPlus:
    expected outputs computed from the canonical solution) and returns them to be written.
    """

    name: str
    description: str
    fields: str  # the fields used, for the README and `tasks import --help`
    task_from_row: Callable[[Mapping[str, Any], RowContext], Task]
    row_id: Callable[[Mapping[str, Any]], str]
    read_source: Callable[[Path], Iterator[dict[str, Any]]] | None = None
    prepare_rows: Callable[[list[dict[str, Any]], RowContext], list[dict[str, Any]]] | None = None

    def rows(self, source: Path) -> Iterator[dict[str, Any]]:
        return (self.read_source or read_rows)(source)


def checked_row_id(
    row: Mapping[str, Any], context: RowContext, field: str, row_id: Callable[[Mapping[str, Any]], str]
) -> str:
    """The row's own id through the format's `row_id`, or an error naming the field."""
    if field not in row:
        raise context.error("is missing", field=field)
    try:
        return row_id(row)
    except (TypeError, ValueError) as exc:
        raise context.error(str(exc), field=field) from None


def read_rows(path: Path) -> Iterator[dict[str, Any]]:
    """Rows of a local JSON (an array, or an object holding one), JSONL, JSONL.gz or parquet file."""
    name = path.name.lower()
    if name.endswith(".parquet"):
        yield from _parquet_rows(path)
        return
    opener = gzip.open if name.endswith(".gz") else open
    with opener(path, "rt", encoding="utf-8") as handle:
        if name.endswith((".jsonl", ".jsonl.gz", ".ndjson")):
            for number, line in enumerate(handle, 1):
                if line.strip():
                    row = _json_row(line, path, number)
                    yield row
            return
        data = json.loads(handle.read(), parse_constant=_json_constant)
    if isinstance(data, dict):
        lists = [v for v in data.values() if isinstance(v, list)]
        if len(lists) != 1:
            raise TaskPackError("a JSON object must hold exactly one list of rows", file=str(path))
        data = lists[0]
    if not isinstance(data, list):
        raise TaskPackError("must be a JSON array of rows (or JSONL)", file=str(path))
    for number, row in enumerate(data, 1):
        if not isinstance(row, dict):
            raise TaskPackError(f"row {number} is not an object", file=str(path))
        yield row


def _json_constant(name: str) -> float:
    return float(name)  # NaN, Infinity, -Infinity: MBPP+ and EvalPlus files hold them


def _json_row(line: str, path: Path, number: int) -> dict[str, Any]:
    try:
        row = json.loads(line, parse_constant=_json_constant)
    except json.JSONDecodeError as exc:
        raise TaskPackError(f"line {number} is not valid JSON: {exc.msg}", file=str(path)) from None
    if not isinstance(row, dict):
        raise TaskPackError(f"line {number} is not a JSON object", file=str(path))
    return row


def _parquet_rows(path: Path) -> Iterator[dict[str, Any]]:
    try:
        import pyarrow.parquet as parquet
    except ImportError as exc:  # pragma: no cover - pyarrow comes with `datasets`
        raise TaskPackError(f"reading parquet needs pyarrow ({exc})", file=str(path)) from None
    table = parquet.ParquetFile(path)
    for batch in table.iter_batches(batch_size=256):
        yield from batch.to_pylist()


def loads_field(row: Mapping[str, Any], name: str, context: RowContext, task: str) -> Any:
    """A field that the published files store as a JSON string (or already as data)."""
    value = row.get(name)
    if isinstance(value, (str, bytes)):
        if not value.strip():
            return None
        try:
            return json.loads(value, parse_constant=_json_constant)
        except json.JSONDecodeError as exc:
            raise context.error(f"is not valid JSON: {exc.msg}", task=task, field=name) from None
    return value


def case_prompt(statement: str, cases: CaseSuite, starter_code: str = "") -> str:
    """The problem statement with the input/output contract a model needs."""
    parts = [statement.strip()]
    if cases.kind == "stdio":
        parts.append(
            "Write a complete Python 3 program. Read the input from standard input and write the "
            "answer to standard output."
        )
    else:
        name = cases.function or ""
        where = (
            f"the method `{name.split('.')[1]}` of class `{name.split('.')[0]}`"
            if "." in name
            else f"`{name}`"
        )
        parts.append(f"Write Python 3 code that defines {where}; it is called with each test's arguments.")
        if starter_code.strip():
            parts.append(f"Start from:\n```python\n{starter_code.rstrip()}\n```")
    return "\n\n".join(parts)


def case_task(
    *,
    context: RowContext,
    task_id: str,
    statement: str,
    cases: CaseSuite,
    reference: str = "",
    starter_code: str = "",
    visible: CaseSuite | None = None,
    limits: Limits | None = None,
    metadata: Mapping[str, Any] | None = None,
) -> Task:
    """The Task of an input/output problem (whole-program answers: no prefix). A row whose every
    judged case the prompt shows (SkipRow) is left out: judged on those alone, a table of their
    answers would pass with full reward and no detector could tell."""
    if every_case_shown(statement, cases, visible):
        raise SkipRow("every judged case is shown in the prompt (its statement or its examples)")
    return Task(
        pack=context.pack,
        name=task_id,
        prompt=case_prompt(statement, cases, starter_code),
        solution_path=SOLUTION_FILE,
        reference_solution=reference,
        hidden_tests=TestSuite(),
        prefix="",
        entry_point=(cases.function or "").split(".")[0] or None,
        limits=limits or context.limits,
        test_runner="fast",
        source=context.file,
        metadata=dict(metadata or {}),
        cases=cases,
        visible_cases=visible,
    )


def case_in_statement(case: Case, kind: str, statement: str) -> bool:
    """Whether `statement` shows `case` as a worked example: stdin/stdout, its input then its output
    in one example; a call, its arguments and its answer in one example (values, not text)."""
    return _case_shown(case, _ReadStatement(statement, kind))


@dataclass
class _ReadStatement:
    """A statement read once for all of a suite's cases (red team 15 R5: it was read per case)."""

    text: str
    kind: str
    examples: list[Example] = field(init=False)
    stdio: StdioStatement | None = field(init=False)

    def __post_init__(self) -> None:
        self.examples = call_examples(self.text) if self.kind != "stdio" else []
        self.stdio = StdioStatement(self.text) if self.kind == "stdio" else None


def _case_shown(case: Case, statement: _ReadStatement) -> bool:
    if statement.stdio is not None:
        text_case = isinstance(case.input, str) and isinstance(case.expected, str)
        return text_case and statement.stdio.shows(case.input, case.expected)
    return shows_call(statement.examples, case.input, case.expected)


def shown_case_indexes(statement: str, cases: CaseSuite, visible: CaseSuite | None) -> list[int]:
    """The positions of the judged cases the prompt shows: each one of the visible cases (the
    prompt's examples) or a worked example of the statement."""
    shown = {(repr(c.input), repr(c.expected)) for c in (visible.cases if visible else ())}
    read = _ReadStatement(statement, cases.kind)
    return [
        index
        for index, case in enumerate(cases.cases)
        if (repr(case.input), repr(case.expected)) in shown or _case_shown(case, read)
    ]


def every_case_shown(statement: str, cases: CaseSuite, visible: CaseSuite | None) -> bool:
    """Whether the prompt shows every case that judges the task."""
    return bool(cases.cases) and len(shown_case_indexes(statement, cases, visible)) == len(cases.cases)


def tested_by_files_task(
    *,
    context: RowContext,
    task_id: str,
    prompt: str,
    reference: str,
    hidden: Mapping[str, str],
    visible: Mapping[str, str] | None = None,
    entry_point: str | None,
    metadata: Mapping[str, Any] | None = None,
) -> Task:
    """The Task of a problem judged by test modules (MBPP asserts, KodCode's pytest file): the model
    writes the whole `solution.py`, which the tests import."""
    return Task(
        pack=context.pack,
        name=task_id,
        prompt=prompt,
        solution_path=SOLUTION_FILE,
        reference_solution=reference,
        hidden_tests=TestSuite(dict(hidden)),
        visible_tests=TestSuite(dict(visible or {})),
        prefix="",
        entry_point=entry_point,
        limits=context.limits,
        test_runner="auto",
        source=context.file,
        metadata=dict(metadata or {}),
    )
