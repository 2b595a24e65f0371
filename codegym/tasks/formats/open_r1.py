"""open-r1's verifiable coding problems (open-r1/verifiable-coding-problems-python and its
decontaminated / tested variants; PrimeIntellect/verifiable-coding-problems, which they filter).

Fields used: `problem_id` (the task id), `problem_statement` (open-r1) or `prompt` (PrimeIntellect),
`gold_standard_solution` (the reference; a fenced ```python block is unwrapped), `verification_info`
(a struct, or a JSON string in PrimeIntellect's files: `language` and `test_cases`, each
`{input, output, type, fn_name}`), `metadata` (struct or JSON string: difficulty, problem_url,
time_limit, memory_limit), `source`, `task_type`, `in_source_id`.

- `type: stdin_stdout`: stdin/stdout; open-r1's reward compares stripped output line by line:
  `lines`.
- `type: function_call`: `input` is the argument list and `output` the expected value, both written
  as JSON (or Python) literals; the function is `fn_name`, or `Class.fn_name` when the reference
  defines it as a method. The rows come from APPS/TACO, so Codewars' one-element-list outputs are
  accepted either way (`unwrap_single`). PrimeIntellect's harness imports `typing`'s List, Dict, ...
  first; the reference gets the ones it uses.
- Rows in another language than Python, without test cases, or mixing both kinds are left out.
"""

from __future__ import annotations

import ast
import json
import re
from collections.abc import Mapping
from typing import Any

from codegym.tasks.cases import DEFAULT_CASE_TIMEOUT_S, Case, CaseSuite, Comparison
from codegym.tasks.formats.base import DatasetFormat, RowContext, SkipRow, case_task, loads_field
from codegym.tasks.formats.contest import (
    COMMON_OPTIONS,
    case_text,
    case_timeout,
    check_options,
    comparison_for,
    implicit_imports,
    python3_problem,
)
from codegym.tasks.model import Task

STDIO_COMPARISON = Comparison(match="lines")
CALL_COMPARISON = Comparison(oracle="unwrap_single")
TYPING_IMPORTS = {n: f"from typing import {n}" for n in ("List", "Dict", "Set", "Tuple", "Union", "Optional")}
_FENCE = re.compile(r"```[\w+-]*[^\S\n]*\n(.*?)```", re.S)


def _task_id(row: Mapping[str, Any], context: RowContext) -> str:
    value = row.get("problem_id")
    if value is None or not str(value).strip():
        raise context.error("is required (the task id)", field="problem_id")
    return str(value).strip()


def unfence(text: str) -> str:
    """The code of a markdown answer: its last fenced block, or the whole text when it has none."""
    blocks = _FENCE.findall(text)
    return blocks[-1] if blocks else text


def _literal(text: Any, context: RowContext, task: str) -> Any:
    """A function_call input/output: JSON, else a Python literal (`True`, `None`, tuples)."""
    if not isinstance(text, str):
        return text
    try:
        return json.loads(text)
    except json.JSONDecodeError:
        pass
    try:
        return ast.literal_eval(text)
    except (ValueError, SyntaxError, MemoryError, RecursionError):
        raise context.error(
            f"a function_call value must be a JSON or Python literal, got {text[:80]!r}",
            task=task,
            field="verification_info",
        ) from None


def _function(fn_name: str, reference: str) -> str:
    """`fn_name`, or `Class.fn_name` when the reference defines it only as a method of a class."""
    try:
        tree = ast.parse(reference)
    except (SyntaxError, ValueError):
        return fn_name
    top = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef))}
    if fn_name in top:
        return fn_name
    for node in tree.body:
        if isinstance(node, ast.ClassDef) and any(
            isinstance(m, (ast.FunctionDef, ast.AsyncFunctionDef)) and m.name == fn_name for m in node.body
        ):
            return f"{node.name}.{fn_name}"
    return fn_name


def _call_suite(test_cases: list[Any], reference: str, context: RowContext, task: str) -> CaseSuite:
    names = {tc.get("fn_name") for tc in test_cases}
    if len(names) != 1 or not isinstance(fn_name := names.pop(), str) or not fn_name.isidentifier():
        raise context.error(
            f"function_call cases must share one fn_name, got {sorted(map(str, names))}",
            task=task,
            field="verification_info",
        )
    cases = []
    for tc in test_cases:
        args = _literal(tc.get("input"), context, task)
        if not isinstance(args, (list, tuple)):
            raise context.error(
                "a function_call input must be the list of arguments", task=task, field="verification_info"
            )
        cases.append(Case(tuple(args), _literal(tc.get("output"), context, task)))
    return CaseSuite(
        kind="call",
        cases=tuple(cases),
        function=_function(fn_name, reference),
        comparison=comparison_for(context, CALL_COMPARISON, task=task),
        case_timeout_s=case_timeout(context, DEFAULT_CASE_TIMEOUT_S, task=task),
    )


def _task_from_row(row: Mapping[str, Any], context: RowContext) -> Task:
    task_id = _task_id(row, context)
    check_options(context, COMMON_OPTIONS, task=task_id)
    info = loads_field(row, "verification_info", context, task_id)
    if not isinstance(info, Mapping):
        raise context.error("must hold language and test_cases", task=task_id, field="verification_info")
    language = str(info.get("language") or "python").lower()
    if language not in ("python", "python3"):
        raise SkipRow(f"the tests are for {language}, not Python")
    test_cases = info.get("test_cases") or []
    if not isinstance(test_cases, list) or not all(isinstance(tc, Mapping) for tc in test_cases):
        raise context.error("test_cases must be a list of objects", task=task_id, field="verification_info")
    if not test_cases:
        raise SkipRow("no test cases")
    kinds = {tc.get("type") for tc in test_cases}
    gold = row.get("gold_standard_solution") or ""
    if not isinstance(gold, str):
        raise context.error("must be text", task=task_id, field="gold_standard_solution")
    reference = unfence(gold)
    reference_problem = python3_problem(reference) if gold.strip() else "no gold_standard_solution"
    if kinds == {"stdin_stdout"}:
        suite = CaseSuite(
            kind="stdio",
            cases=tuple(
                Case(
                    case_text(tc.get("input", ""), context, task=task_id, field="verification_info"),
                    case_text(tc.get("output", ""), context, task=task_id, field="verification_info"),
                )
                for tc in test_cases
            ),
            comparison=comparison_for(context, STDIO_COMPARISON, task=task_id),
            case_timeout_s=case_timeout(context, DEFAULT_CASE_TIMEOUT_S, task=task_id),
        )
    elif kinds == {"function_call"}:
        suite = _call_suite(test_cases, reference, context, task_id)
        if reference_problem is None:
            reference = implicit_imports(reference, TYPING_IMPORTS) + reference
    else:
        raise SkipRow(
            f"test case types {sorted(map(str, kinds))}: expected all stdin_stdout or all function_call"
        )
    statement = row.get("problem_statement") or row.get("prompt")
    if not isinstance(statement, str) or not statement.strip():
        raise context.error("is required (the problem statement)", task=task_id, field="problem_statement")
    metadata: dict[str, Any] = {
        "source": row.get("source") or "",
        "task_type": row.get("task_type") or "",
        "in_source_id": row.get("in_source_id") or "",
    }
    extra = loads_field(row, "metadata", context, task_id)
    if isinstance(extra, Mapping):
        metadata.update(
            {k: extra[k] for k in ("difficulty", "problem_url", "time_limit", "memory_limit") if k in extra}
        )
    if reference_problem is not None:
        metadata["reference_note"] = f"gold_standard_solution is not usable: {reference_problem}"
        reference = ""
    return case_task(
        context=context,
        task_id=task_id,
        statement=statement,
        cases=suite,
        reference=reference,
        metadata=metadata,
    )


def _row_id(row: Mapping[str, Any]) -> str:
    return str(row["problem_id"])


FORMATS: dict[str, DatasetFormat] = {
    "open-r1": DatasetFormat(
        name="open-r1",
        description="open-r1/verifiable-coding-problems-python (and PrimeIntellect's verifiable-coding-"
        "problems): stdin/stdout and function-call tests in verification_info",
        fields="problem_id, problem_statement or prompt, gold_standard_solution, verification_info "
        "(struct or JSON string: language, test_cases[input, output, type, fn_name]), metadata, source, "
        "task_type, in_source_id",
        task_from_row=_task_from_row,
        row_id=_row_id,
    ),
}
