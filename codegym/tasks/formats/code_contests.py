"""CodeContests (deepmind/code_contests): competitive-programming problems judged on stdin/stdout.

Fields used: `name` (the task id), `description`, `public_tests` / `private_tests` / `generated_tests`
(each `{input: [...], output: [...]}`; a list of `{input, output}` as the proto's JSON export writes
it is read too), `solutions` (`{language: [...], solution: [...]}`; language 3 = PYTHON3 is kept,
1 = PYTHON is Python 2), `time_limit` (`{seconds, nanos}`, or a `"2s"` string), `memory_limit_bytes`,
`input_file` / `output_file`, and as metadata `difficulty`, `source`, `cf_rating`, `cf_tags`, ...

Judged as the dataset's own tester (execution/tester_sandboxer.cc) judges: every test counts
(public + private + generated), whitespace-separated tokens are compared and numbers may differ by
less than 1e-5 (absolute): `tokens`, `float_abs: 1e-5` (its lower-casing of tokens is not modelled).
The public tests are the visible cases. The per-case limit is the problem's `time_limit` times the
`time_scale` option (default 1; the limits were set for C++), else 4 s. Problems that read and write
named files instead of stdin/stdout are left out (SkipRow), and so are problems with public tests
only (the prompt shows them: a table of their answers would pass).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from typing import Any

from codegym.tasks.cases import DEFAULT_CASE_TIMEOUT_S, Case, CaseSuite, Comparison
from codegym.tasks.formats.base import DatasetFormat, RowContext, SkipRow, case_task
from codegym.tasks.formats.contest import (
    COMMON_OPTIONS,
    case_timeout,
    check_options,
    comparison_for,
    first_python3,
)
from codegym.tasks.model import Task

OPTIONS = (*COMMON_OPTIONS, "time_scale")
DEFAULT_COMPARISON = Comparison(match="tokens", float_abs=1e-5)
TEST_FIELDS = ("public_tests", "private_tests", "generated_tests")
# ContestProblem.Solution.Language (contest_problem.proto)
LANGUAGES = {0: "UNKNOWN_LANGUAGE", 1: "PYTHON", 2: "CPP", 3: "PYTHON3", 4: "JAVA"}
PYTHON3 = 3
SOURCES = {
    0: "UNKNOWN_SOURCE",
    1: "CODECHEF",
    2: "CODEFORCES",
    3: "HACKEREARTH",
    4: "CODEJAM",
    6: "ATCODER",
    7: "AIZU",
}
DIFFICULTIES = {
    **dict(enumerate(("UNKNOWN_DIFFICULTY", "EASY", "MEDIUM", "HARD", "HARDER", "HARDEST", "EXTERNAL"))),
    **{7 + i: letter for i, letter in enumerate("ABCDEFGHIJK")},  # Codeforces-style letter grades
    **{19 + i: letter for i, letter in enumerate("LMNOPQRSTUV")},  # (the proto skips 18)
}
_NAMED_FILE = re.compile(r"\b(?:input|output)\.txt\b", re.I)  # older Codeforces rounds
_STDIO_WORDS = re.compile(r"standard\s+(?:input|output)|\bstdin\b|\bstdout\b|console", re.I)


def _task_id(row: Mapping[str, Any], context: RowContext) -> str:
    name = row.get("name")
    if not isinstance(name, str) or not name.strip():
        raise context.error("is required (the task id)", field="name")
    return name.strip().replace("/", "_")  # a `/` would read as pack/name


def _tests(row: Mapping[str, Any], field: str, context: RowContext, task: str) -> list[Case]:
    """`{input: [...], output: [...]}` (Hugging Face) or `[{input, output}, ...]` (proto JSON)."""
    value = row.get(field)
    if value is None:
        return []
    if isinstance(value, Mapping):
        inputs, outputs = value.get("input") or [], value.get("output") or []
    elif isinstance(value, list) and all(isinstance(t, Mapping) for t in value):
        inputs, outputs = [t.get("input", "") for t in value], [t.get("output", "") for t in value]
    else:
        raise context.error("must be {input: [...], output: [...]}", task=task, field=field)
    if not isinstance(inputs, list) or not isinstance(outputs, list) or len(inputs) != len(outputs):
        raise context.error("needs as many outputs as inputs", task=task, field=field)
    if not all(isinstance(t, str) for t in [*inputs, *outputs]):
        raise context.error("inputs and outputs must be text", task=task, field=field)
    return [Case(i, o) for i, o in zip(inputs, outputs, strict=True)]


def _python3_solutions(row: Mapping[str, Any], context: RowContext, task: str) -> tuple[list[str], int]:
    """The PYTHON3 solutions (in order) and how many solutions there are in all."""
    value = row.get("solutions")
    if value is None:
        return [], 0
    if isinstance(value, Mapping):
        pairs = list(zip(value.get("language") or [], value.get("solution") or [], strict=False))
    elif isinstance(value, list) and all(isinstance(s, Mapping) for s in value):
        pairs = [(s.get("language"), s.get("solution")) for s in value]
    else:
        raise context.error("must be {language: [...], solution: [...]}", task=task, field="solutions")
    python3 = [src for lang, src in pairs if lang in (PYTHON3, "PYTHON3") and isinstance(src, str)]
    return python3, len(pairs)


def _time_limit_s(row: Mapping[str, Any], context: RowContext, task: str) -> float | None:
    value = row.get("time_limit")
    if value is None:
        return None
    if isinstance(value, Mapping):  # google.protobuf.Duration as Hugging Face stores it
        seconds = (value.get("seconds") or 0) + (value.get("nanos") or 0) / 1e9
    elif isinstance(value, str) and re.fullmatch(r"\d+(\.\d+)?s", value.strip()):  # its JSON form
        seconds = float(value.strip()[:-1])
    else:
        raise context.error(f"must be {{seconds, nanos}}, got {value!r}", task=task, field="time_limit")
    return seconds or None


def _reads_named_files(row: Mapping[str, Any]) -> str | None:
    for field in ("input_file", "output_file"):
        if isinstance(row.get(field), str) and row[field].strip():
            return f"it reads and writes files ({field}: {row[field].strip()!r}), not stdin/stdout"
    description = row.get("description") or ""
    named = _NAMED_FILE.search(description)
    if named and not _STDIO_WORDS.search(description):
        return f"its statement names the file {named.group(0)!r} and never stdin/stdout"
    return None


def _task_from_row(row: Mapping[str, Any], context: RowContext) -> Task:
    task_id = _task_id(row, context)
    options = check_options(context, OPTIONS, task=task_id)
    description = row.get("description")
    if not isinstance(description, str) or not description.strip():
        raise context.error("is required (the problem statement)", task=task_id, field="description")
    named_files = _reads_named_files(row)
    if named_files:
        raise SkipRow(named_files)
    tests = {field: _tests(row, field, context, task_id) for field in TEST_FIELDS}
    every = [case for field in TEST_FIELDS for case in tests[field]]
    if not every:
        raise SkipRow("no tests (public, private and generated are all empty)")
    if not tests["private_tests"] and not tests["generated_tests"]:
        # the statement and the prompt show the public tests: judged on them alone, a table of the
        # shown answers would pass with full reward, and no detector could tell (nothing is hidden)
        raise SkipRow("public tests only (the prompt shows every judged case)")
    time_limit = _time_limit_s(row, context, task_id)
    scale = options.get("time_scale", 1.0)
    if isinstance(scale, bool) or not isinstance(scale, (int, float)) or not scale > 0:
        raise context.error(f"must be a number > 0, got {scale!r}", task=task_id, field="options.time_scale")
    timeout = case_timeout(
        context, time_limit * scale if time_limit else DEFAULT_CASE_TIMEOUT_S, task=task_id
    )
    comparison = comparison_for(context, DEFAULT_COMPARISON, task=task_id)
    cases = CaseSuite(kind="stdio", cases=tuple(every), comparison=comparison, case_timeout_s=timeout)
    visible = (
        CaseSuite(
            kind="stdio", cases=tuple(tests["public_tests"]), comparison=comparison, case_timeout_s=timeout
        )
        if tests["public_tests"]
        else None
    )
    python3, total = _python3_solutions(row, context, task_id)
    reference, passed_over = first_python3(python3)
    metadata: dict[str, Any] = {
        "source": SOURCES.get(row.get("source"), row.get("source")),
        "difficulty": DIFFICULTIES.get(row.get("difficulty"), row.get("difficulty")),
        "cf_rating": row.get("cf_rating"),
        "cf_tags": list(row.get("cf_tags") or []),
        "cf_contest_id": row.get("cf_contest_id"),
        "cf_index": row.get("cf_index"),
        "time_limit_s": time_limit,
        "memory_limit_bytes": row.get("memory_limit_bytes"),
        "tests": {field.removesuffix("_tests"): len(tests[field]) for field in TEST_FIELDS},
        "solutions": total,
    }
    if not reference:
        metadata["reference_note"] = (
            f"none of the {len(python3)} PYTHON3 solutions compiles as Python 3"
            if python3
            else f"no PYTHON3 solution among {total}"
        )
    elif passed_over:
        metadata["reference_note"] = f"PYTHON3 solution {passed_over} (0-based); earlier ones are Python 2"
    return case_task(
        context=context,
        task_id=task_id,
        statement=description,
        cases=cases,
        reference=reference,
        visible=visible,
        metadata=metadata,
    )


def _row_id(row: Mapping[str, Any]) -> str:
    return str(row["name"]).strip()


FORMATS: dict[str, DatasetFormat] = {
    "code_contests": DatasetFormat(
        name="code_contests",
        description="CodeContests (deepmind/code_contests): stdin/stdout problems with public, private and "
        "generated tests",
        fields="name, description, public_tests, private_tests, generated_tests, solutions, time_limit, "
        "memory_limit_bytes, input_file, output_file, difficulty, source, cf_rating, cf_tags",
        task_from_row=_task_from_row,
        row_id=_row_id,
    ),
}
