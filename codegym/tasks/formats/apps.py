"""APPS (hendrycks/apps, codeparrot/apps) and TACO (BAAI/TACO): one problem per row.

Both publish `question`, `input_output` (a JSON *string*: `inputs`, `outputs`, optional `fn_name`),
`solutions` (a JSON string list), `starter_code` and `difficulty`; APPS adds `problem_id` and `url`,
TACO adds `name`, `source`, `tags` / `skill_types` / `raw_tags` (Python literal strings, read with
`ast.literal_eval`), `time_limit`, `memory_limit`, ... and no id: TACO's own evaluation numbers its
rows from 0, so a TACO task is named by its row index in the file. APPS is also published as a
directory per problem (`question.txt`, `input_output.json`, `solutions.json`, `metadata.json`,
`starter_code.py`): `read_source` turns such a directory into the same rows.

Judged as the datasets' `testing_util.run_test` judges:
- no `fn_name`: stdin/stdout. A case published as a list of lines is joined with newlines. Their
  harness accepts token-equal output and all-numeric output within `np.allclose` (rtol 1e-5,
  atol 1e-8), so the default is `tokens` with that tolerance (its order-insensitive set fallbacks
  are left out: they accept wrong answers).
- `fn_name`: call-based. Each input is the list of positional arguments; the method of a fresh
  `Solution()` when the starter code (or, without one, the reference) has `class Solution`, else the
  function. Codewars rows wrap the expected value in a one-element list while LeetCode rows do not,
  and the harness accepts both: oracle `unwrap_single`. JSON turns int dict keys into strings; the
  harness turns them back (first argument and expected value), and so does this reader.
- 4 s per case (their `timeout`); TACO's `time_limit` is metadata only, as TACO's harness ignores it.
- The harness puts a block of imports (`sys`, `math`, `collections`, `heapq`, `typing.List`, ...) in
  front of every program; the reference gets the ones it uses, and LeetCode starter code shown in the
  prompt gets its `typing` import.
- Reference: the first solution that is Python 3 (Python 2 ones are passed over); "" when none is,
  with `metadata["reference_note"]` saying so.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Any

from codegym.tasks.cases import DEFAULT_CASE_TIMEOUT_S, Case, CaseSuite, Comparison
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats.base import (
    DatasetFormat,
    RowContext,
    SkipRow,
    case_task,
    loads_field,
    read_rows,
)
from codegym.tasks.formats.contest import (
    COMMON_OPTIONS,
    case_text,
    case_timeout,
    check_options,
    comparison_for,
    first_python3,
    implicit_imports,
    with_typing_imports,
)
from codegym.tasks.model import Task

# `np.allclose` defaults: the tolerance APPS/TACO give all-numeric output
STDIO_COMPARISON = Comparison(match="tokens", float_rel=1e-5, float_abs=1e-8)
CALL_COMPARISON = Comparison(oracle="unwrap_single")
# the imports testing_util.py writes in front of every program (name -> the line that binds it)
HARNESS_IMPORTS: dict[str, str] = {
    **{m: f"import {m}" for m in ("sys", "time", "itertools", "collections", "math", "fractions")},
    **{m: f"import {m}" for m in ("random", "heapq")},
    "np": "import numpy as np",
    **{n: f"from itertools import {n}" for n in ("accumulate", "product", "permutations", "combinations")},
    **{
        n: f"from collections import {n}"
        for n in ("Counter", "OrderedDict", "deque", "defaultdict", "ChainMap")
    },
    "lru_cache": "from functools import lru_cache",
    **{
        n: f"from math import {n}"
        for n in ("sqrt", "sin", "cos", "tan", "ceil", "fabs", "floor", "gcd", "exp", "log", "log2")
    },
    "List": "from typing import List",
    "Tuple": "from typing import Tuple",
    **{
        n: f"from heapq import {n}"
        for n in ("heappush", "heappop", "heapify", "heapreplace", "heappushpop", "nlargest", "nsmallest")
    },
    "stdin": "from sys import stdin",  # the stdin harness also binds `stdin` / `stdout`
    "stdout": "from sys import stdout",
}
TACO_LITERAL_FIELDS = ("tags", "skill_types", "raw_tags")
_INT_KEY = re.compile(r"-?\d+")


def _apps_task_id(row: Mapping[str, Any], context: RowContext) -> str:
    if row.get("problem_id") is None:
        raise context.error("is required", field="problem_id")
    return str(row["problem_id"])


def _taco_task_id(row: Mapping[str, Any], context: RowContext) -> str:
    # TACO has no id column; its compute_metric.py names problems by their 0-based row index
    for key in ("problem_id", "id"):
        if row.get(key) is not None:
            return str(row[key])
    if context.line is None:
        raise context.error("a TACO row without an id needs its row number", field="problem_id")
    return str(context.line - 1)


def _int_keys(value: Any) -> Any:
    """JSON's string keys back to ints, as the APPS harness does (only when every key is an int)."""
    if isinstance(value, dict) and value and all(isinstance(k, str) and _INT_KEY.fullmatch(k) for k in value):
        return {int(k): v for k, v in value.items()}
    return value


def _call_case(inputs: Any, expected: Any, context: RowContext, task: str) -> Case:
    if not isinstance(inputs, list):
        raise context.error(
            f"call-based inputs must be lists of arguments, got {type(inputs).__name__}",
            task=task,
            field="input_output",
        )
    args = [_int_keys(inputs[0]), *inputs[1:]] if inputs else []
    if isinstance(expected, list) and expected:
        expected = [_int_keys(expected[0]), *expected[1:]]
    return Case(tuple(args), _int_keys(expected))


def _function(fn_name: Any, starter_code: str, reference: str, context: RowContext, task: str) -> str:
    if not isinstance(fn_name, str) or not fn_name.isidentifier():
        raise context.error(
            f"fn_name must be an identifier, got {fn_name!r}", task=task, field="input_output"
        )
    # the harness instantiates Solution whenever the program has `class Solution`
    source = starter_code if starter_code.strip() else reference
    return f"Solution.{fn_name}" if re.search(r"^class\s+Solution\b", source, re.M) else fn_name


def _solutions(row: Mapping[str, Any], context: RowContext, task: str) -> list[Any]:
    solutions = loads_field(row, "solutions", context, task)
    if solutions is None:
        return []
    if not isinstance(solutions, list):
        raise context.error("must be a JSON list of programs", task=task, field="solutions")
    return solutions


def _literal_list(row: Mapping[str, Any], name: str, context: RowContext, task: str) -> list[Any]:
    """TACO's tags are Python literals (`"['Sorting', 'Greedy']"`): literal_eval, never eval."""
    value = row.get(name)
    if value is None or (isinstance(value, str) and not value.strip()):
        return []
    if isinstance(value, list):
        return value
    try:
        parsed = ast.literal_eval(value) if isinstance(value, str) else None
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        parsed = None
    if not isinstance(parsed, (list, tuple)):
        raise context.error(f"must be a Python list literal, got {str(value)[:80]!r}", task=task, field=name)
    return list(parsed)


def _task_from_row(row: Mapping[str, Any], context: RowContext, *, taco: bool) -> Task:
    task_id = _taco_task_id(row, context) if taco else _apps_task_id(row, context)
    check_options(context, COMMON_OPTIONS, task=task_id)
    in_out = loads_field(row, "input_output", context, task_id)
    if in_out is None:
        raise SkipRow("input_output is empty: no tests")
    if not isinstance(in_out, dict):
        raise context.error(
            "must be a JSON object with inputs and outputs", task=task_id, field="input_output"
        )
    inputs, outputs = in_out.get("inputs") or [], in_out.get("outputs") or []
    if not isinstance(inputs, list) or not isinstance(outputs, list):
        raise context.error("inputs and outputs must be lists", task=task_id, field="input_output")
    if not inputs and not outputs:
        raise SkipRow("no test cases (input_output has empty inputs)")
    if len(inputs) != len(outputs):
        raise context.error(
            f"{len(inputs)} inputs but {len(outputs)} outputs", task=task_id, field="input_output"
        )
    solutions = _solutions(row, context, task_id)
    reference, passed_over = first_python3(solutions)
    starter_code = row.get("starter_code") or ""
    if not isinstance(starter_code, str):
        raise context.error("must be text", task=task_id, field="starter_code")
    fn_name = in_out.get("fn_name")
    if fn_name is None:
        cases = tuple(
            Case(
                case_text(i, context, task=task_id, field="input_output"),
                case_text(o, context, task=task_id, field="input_output"),
            )
            for i, o in zip(inputs, outputs, strict=True)
        )
        suite = CaseSuite(
            kind="stdio",
            cases=cases,
            comparison=comparison_for(context, STDIO_COMPARISON, task=task_id),
            case_timeout_s=case_timeout(context, DEFAULT_CASE_TIMEOUT_S, task=task_id),
        )
    else:
        function = _function(fn_name, starter_code, reference, context, task_id)
        suite = CaseSuite(
            kind="call",
            cases=tuple(_call_case(i, o, context, task_id) for i, o in zip(inputs, outputs, strict=True)),
            function=function,
            comparison=comparison_for(context, CALL_COMPARISON, task=task_id),
            case_timeout_s=case_timeout(context, DEFAULT_CASE_TIMEOUT_S, task=task_id),
        )
    metadata: dict[str, Any] = {
        "difficulty": row.get("difficulty"),
        "url": row.get("url") or "",
        "solutions": len(solutions),
    }
    if reference:
        reference = implicit_imports(reference, HARNESS_IMPORTS) + reference
        if passed_over:
            metadata["reference_note"] = f"solution {passed_over} (0-based); earlier ones are not Python 3"
    else:
        metadata["reference_note"] = (
            f"none of the {len(solutions)} solutions is Python 3" if solutions else "no solutions published"
        )
    if taco:
        metadata.update(
            name=row.get("name") or "",
            source=row.get("source") or "",
            time_limit=row.get("time_limit"),
            memory_limit=row.get("memory_limit"),
            **{name: _literal_list(row, name, context, task_id) for name in TACO_LITERAL_FIELDS},
        )
    question = row.get("question")
    if not isinstance(question, str) or not question.strip():
        raise context.error("is required (the problem statement)", task=task_id, field="question")
    return case_task(
        context=context,
        task_id=task_id,
        statement=question,
        cases=suite,
        reference=reference,
        starter_code=with_typing_imports(starter_code) if suite.kind == "call" else starter_code,
        metadata=metadata,
    )


def read_apps_source(path: Path) -> Iterator[dict[str, Any]]:
    """A rows file, or APPS's own layout: a directory of problem folders (one row each, named by the
    folder), or a single problem folder."""
    if not path.is_dir():
        yield from read_rows(path)
        return
    if (path / "question.txt").is_file():
        yield _problem_dir_row(path)
        return
    for folder in sorted(p for p in path.iterdir() if p.is_dir() and (p / "question.txt").is_file()):
        yield _problem_dir_row(folder)


def _problem_dir_row(folder: Path) -> dict[str, Any]:
    def text(name: str) -> str:
        file = folder / name
        try:
            return file.read_text(encoding="utf-8") if file.is_file() else ""
        except UnicodeDecodeError as exc:
            raise TaskPackError(f"not UTF-8 text: {exc}", task=folder.name, file=str(file)) from None

    metadata_text = text("metadata.json")
    try:
        metadata = json.loads(metadata_text) if metadata_text.strip() else {}
    except json.JSONDecodeError as exc:
        raise TaskPackError(
            f"is not valid JSON: {exc.msg}", task=folder.name, file=str(folder / "metadata.json")
        ) from None
    if not isinstance(metadata, dict):
        raise TaskPackError("must be a JSON object", task=folder.name, file=str(folder / "metadata.json"))
    # the JSON files stay strings, exactly as the flat (Hugging Face) files publish them
    return {
        "problem_id": folder.name,
        "question": text("question.txt"),
        "solutions": text("solutions.json"),
        "input_output": text("input_output.json"),
        "starter_code": text("starter_code.py"),
        "difficulty": metadata.get("difficulty", ""),
        "url": metadata.get("url", ""),
    }


def _apps_row_id(row: Mapping[str, Any]) -> str:
    return str(row["problem_id"])


def _taco_row_id(row: Mapping[str, Any]) -> str:
    for key in ("problem_id", "id"):
        if row.get(key) is not None:
            return str(row[key])
    raise KeyError("problem_id")  # reported as `row N` (1-based; the task is named N-1)


FORMATS: dict[str, DatasetFormat] = {
    "apps": DatasetFormat(
        name="apps",
        description="APPS (hendrycks/apps, codeparrot/apps): stdin/stdout and call-based problems",
        fields="problem_id, question, input_output (JSON string), solutions (JSON string), starter_code, "
        "difficulty, url",
        task_from_row=lambda row, context: _task_from_row(row, context, taco=False),
        row_id=_apps_row_id,
        read_source=read_apps_source,
    ),
    "taco": DatasetFormat(
        name="taco",
        description="TACO (BAAI/TACO): APPS's schema plus tags, skills, source and limits; tasks named by "
        "row index",
        fields="question, input_output (JSON string), solutions (JSON string), starter_code, difficulty, "
        "name, source, tags / skill_types / raw_tags (Python literals), time_limit, memory_limit, url",
        task_from_row=lambda row, context: _task_from_row(row, context, taco=True),
        row_id=_taco_row_id,
    ),
}
