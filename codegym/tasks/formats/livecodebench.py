"""LiveCodeBench code generation (`livecodebench/code_generation`, `code_generation_lite`).

Rows: `question_title`, `question_content`, `platform` (leetcode | codeforces | atcoder), `question_id`,
`contest_id`, `contest_date` (ISO), `starter_code`, `difficulty`, `public_test_cases` (a JSON string:
a list of `{input, output, testtype}`), `private_test_cases` (the same JSON, or in the lite release
base64(zlib(pickle(that JSON string)))), `metadata` (a JSON string; `func_name` for LeetCode).

Judged as `lcb_runner/evaluation/testing_util.py` does, on public + private tests together:
- `metadata.func_name` set: call-based. A test's input is one JSON value per line (the positional
  arguments), its output one JSON value; the return value must equal it (tuples count as lists,
  floats exact). A `class Solution` starter means `Solution().<func_name>(...)`, a fresh instance per
  case here.
- otherwise stdin/stdout, compared line by line (same number of lines, trailing whitespace ignored).
  LCB also strips leading whitespace and accepts a line whose tokens are equal as Decimals ("1.0" for
  "1"); here such a line must match as text.
- 6 s per case (LCB's `--timeout` default); `options: {case_timeout_s: ...}` changes it.

LiveCodeBench publishes no solutions: a pack may hold its own reference programs as
`<question_id>.py` files in the folder `options: {references: DIR}` names (next to the rows file).

The compressed private tests are unpickled with an Unpickler that resolves no global at all: only
strings, numbers, lists, dicts, tuples, ... can come out, never a call (`os.system`, `eval`).

`options: {contest_date_from: YYYY-MM-DD, contest_date_to: YYYY-MM-DD}` keeps only problems whose
`contest_date` lies in the window (both ends included, dates at midnight, as LCB's
`--start_date/--end_date`): LiveCodeBench's contamination control. Rows outside are `SkipRow`s, which
`tasks import` reports and leaves out; `in_date_window` is the same test for a filter. (A text filter
`contest_date<=2024-03-31` differs on the last day: "2024-03-31T00:00:00" sorts after "2024-03-31".)
"""

from __future__ import annotations

import base64
import binascii
import io
import json
import pickle
import zlib
from collections.abc import Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any

from codegym.tasks.cases import Case, CaseSuite, Comparison
from codegym.tasks.formats.base import (
    DatasetFormat,
    RowContext,
    SkipRow,
    case_task,
    checked_row_id,
    loads_field,
)
from codegym.tasks.model import Task

FIELDS = (
    "question_id, question_title, question_content, platform, contest_id, contest_date, starter_code, "
    "difficulty, public_test_cases, private_test_cases, metadata"
)
CASE_TIMEOUT_S = 6.0  # lcb_runner's --timeout default, per test
MAX_DECOMPRESSED = 1 << 30  # private tests of the largest problems are tens of MB; a zip bomb is not
# LCB's harness runs `from typing import *` (and collections, math, heapq, ...) before the program, so
# LeetCode starter code (`List[int]`) imports nothing; here the program runs as written, so the prompt says so
IMPORT_NOTE = (
    "Your code runs as written: nothing is imported for you, so import what it uses "
    "(e.g. `from typing import List`)."
)


class RefusedPickle(pickle.UnpicklingError):
    """The pickle names a global (a class or function): refused before anything is called."""


class _NoGlobals(pickle.Unpickler):
    """Plain data only: any pickle that names a class or function (os.system, builtins.eval, a
    reduce of anything) stops here, before anything is called."""

    def find_class(self, module: str, name: str) -> Any:
        raise RefusedPickle(f"refused: the pickle names {module}.{name} (only plain data is accepted)")


def decode_private_cases(value: Any) -> Any:
    """`private_test_cases` as data: a JSON string, or base64(zlib(pickle(JSON string))) as in the lite
    release. Raises ValueError saying which layer failed."""
    if not isinstance(value, (str, bytes)):
        return value
    text = value.decode("utf-8") if isinstance(value, bytes) else value
    if not text.strip():
        return []
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        packed = base64.b64decode(text.encode("ascii"), validate=True)
    except (binascii.Error, UnicodeEncodeError):
        raise ValueError("is neither JSON nor base64 (LiveCodeBench's compressed form)") from None
    inflater = zlib.decompressobj()
    try:
        raw = inflater.decompress(packed, MAX_DECOMPRESSED)
    except zlib.error as exc:
        raise ValueError(f"base64 that is not zlib data ({exc})") from None
    if inflater.unconsumed_tail:
        raise ValueError(f"decompresses to more than {MAX_DECOMPRESSED} bytes")
    try:
        data = _NoGlobals(io.BytesIO(raw)).load()
    except RefusedPickle as exc:
        raise ValueError(f"compressed pickle {exc}") from None
    except Exception as exc:  # truncated or corrupt pickles raise many kinds
        raise ValueError(f"compressed data is not a readable pickle ({type(exc).__name__}: {exc})") from None
    if isinstance(data, bytes):
        data = data.decode("utf-8")
    if isinstance(data, str):
        try:
            return json.loads(data)
        except json.JSONDecodeError as exc:
            raise ValueError(f"the unpickled string is not JSON ({exc.msg})") from None
    return data


def _as_datetime(value: Any) -> datetime:
    if isinstance(value, datetime):
        return value.replace(tzinfo=None)
    if isinstance(value, date):  # YAML reads an unquoted 2024-01-31 as a date
        return datetime(value.year, value.month, value.day)
    if isinstance(value, str):
        return datetime.fromisoformat(value.strip().replace("Z", "+00:00")).replace(tzinfo=None)
    raise ValueError(f"not a date: {value!r}")


def in_date_window(row: Mapping[str, Any], date_from: Any = None, date_to: Any = None) -> bool:
    """Whether the row's `contest_date` lies in [date_from, date_to] (either end may be None), compared
    as LiveCodeBench does: `YYYY-MM-DD` bounds are midnight."""
    when = _as_datetime(row["contest_date"])
    if date_from is not None and when < _as_datetime(date_from):
        return False
    return not (date_to is not None and when > _as_datetime(date_to))


def _check_window(row: Mapping[str, Any], context: RowContext, task: str) -> None:
    bounds = {}
    for name in ("contest_date_from", "contest_date_to"):
        value = context.options.get(name)
        if value is not None:
            try:
                _as_datetime(value)
            except ValueError:
                raise context.error(
                    f"must be a date (YYYY-MM-DD), got {value!r}", field=f"options.{name}"
                ) from None
            bounds[name] = value
    if not bounds:
        return
    try:
        inside = in_date_window(row, bounds.get("contest_date_from"), bounds.get("contest_date_to"))
    except (KeyError, ValueError):
        raise context.error("must be an ISO date", task=task, field="contest_date") from None
    if not inside:
        raise SkipRow(
            # the reason's head (before the colon) groups these rows in `tasks import`'s report
            f"outside the contest-date window: {row['contest_date']} not in "
            f"[{bounds.get('contest_date_from', '...')}, {bounds.get('contest_date_to', '...')}]"
        )


def _tests(value: Any, context: RowContext, task: str, field: str) -> list[Mapping[str, Any]]:
    if not isinstance(value, list):
        raise context.error("must be a list of {input, output, testtype}", task=task, field=field)
    for number, test in enumerate(value, 1):
        if not (
            isinstance(test, Mapping)
            and isinstance(test.get("input"), str)
            and isinstance(test.get("output"), str)
            and test.get("testtype") in ("stdin", "functional")
        ):
            raise context.error(
                f"test {number} must be {{input: str, output: str, testtype: stdin | functional}}",
                task=task,
                field=field,
            )
    return value


def _call_case(test: Mapping[str, Any], number: int) -> Case:
    """LCB: `[json.loads(line) for line in input.split("\\n")]`, `json.loads(output)`."""
    try:
        arguments = tuple(json.loads(line) for line in test["input"].split("\n"))
        expected = json.loads(test["output"])
    except json.JSONDecodeError as exc:
        raise SkipRow(f"functional test {number} is not one JSON value per line ({exc.msg})") from None
    return Case(arguments, expected)


def _reference(context: RowContext, task: str) -> str:
    """A pack's own reference programs (LiveCodeBench publishes none): `options: {references: DIR}`
    holds `<question_id>.py` files, next to the rows file."""
    folder = context.options.get("references")
    if folder is None:
        return ""
    if not isinstance(folder, str):
        raise context.error("must name a folder next to the rows file", field="options.references")
    path = Path(context.file).parent / folder / f"{task}.py"
    return path.read_text(encoding="utf-8") if path.is_file() else ""


def row_id(row: Mapping[str, Any]) -> str:
    value = row["question_id"]
    if isinstance(value, bool) or not isinstance(value, (str, int)) or not str(value).strip():
        raise ValueError("question_id must be a non-empty string")
    return str(value)


def task_from_row(row: Mapping[str, Any], context: RowContext) -> Task:
    task = checked_row_id(row, context, "question_id", row_id)
    _check_window(row, context, task)
    statement = row.get("question_content")
    if not isinstance(statement, str) or not statement.strip():
        raise context.error("must be a non-empty string", task=task, field="question_content")
    starter = row.get("starter_code") or ""
    if not isinstance(starter, str):
        raise context.error("must be a string", task=task, field="starter_code")
    metadata = loads_field(row, "metadata", context, task) or {}
    if not isinstance(metadata, Mapping):
        raise context.error("must be a JSON object", task=task, field="metadata")
    public = _tests(
        loads_field(row, "public_test_cases", context, task) or [], context, task, "public_test_cases"
    )
    try:
        private_value = decode_private_cases(row.get("private_test_cases"))
    except ValueError as exc:
        raise context.error(str(exc), task=task, field="private_test_cases") from None
    private = _tests(private_value or [], context, task, "private_test_cases")
    if not public and not private:
        raise SkipRow("no tests: nothing would judge the program")

    func_name = metadata.get("func_name")
    kind = "call" if func_name else "stdio"
    wanted = "functional" if func_name else "stdin"
    for field, tests in (("public_test_cases", public), ("private_test_cases", private)):
        for number, test in enumerate(tests, 1):
            if test["testtype"] != wanted:
                raise context.error(
                    f"test {number} is {test['testtype']!r} but metadata "
                    + ("names func_name" if func_name else "has no func_name"),
                    task=task,
                    field=field,
                )
    timeout = context.options.get("case_timeout_s", CASE_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or timeout <= 0:
        raise context.error(f"must be a number > 0, got {timeout!r}", field="options.case_timeout_s")

    if kind == "call":
        if not isinstance(func_name, str) or not func_name.isidentifier():
            raise context.error("func_name must be a Python identifier", task=task, field="metadata")
        function = f"Solution.{func_name}" if "class Solution" in starter else func_name
        comparison = Comparison(oracle="equal")
        public_cases = [_call_case(t, n) for n, t in enumerate(public, 1)]
        private_cases = [_call_case(t, n) for n, t in enumerate(private, len(public) + 1)]
    else:
        function = None
        comparison = Comparison(match="lines")
        public_cases = [Case(t["input"], t["output"]) for t in public]
        private_cases = [Case(t["input"], t["output"]) for t in private]

    def suite(cases: list[Case]) -> CaseSuite:
        return CaseSuite(
            kind=kind,
            cases=tuple(cases),
            function=function,
            comparison=comparison,
            case_timeout_s=float(timeout),
        )

    note = f"\n\n{IMPORT_NOTE}" if kind == "call" and starter.strip() and "import" not in starter else ""
    return case_task(
        context=context,
        task_id=task,
        statement=statement.strip() + note,
        cases=suite(public_cases + private_cases),
        visible=suite(public_cases) if public_cases else None,
        reference=_reference(context, task),
        starter_code=starter,
        metadata={
            "format": "livecodebench",
            **{
                name: str(row[name])
                for name in ("question_title", "platform", "contest_id", "contest_date", "difficulty")
                if row.get(name) is not None
            },
        },
    )


FORMATS = {
    "livecodebench": DatasetFormat(
        name="livecodebench",
        description="LiveCodeBench code_generation(_lite): LeetCode call-based, AtCoder/Codeforces stdin",
        fields=FIELDS,
        task_from_row=task_from_row,
        row_id=row_id,
    )
}
