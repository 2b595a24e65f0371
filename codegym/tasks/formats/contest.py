"""What the competitive-programming readers (APPS, TACO, CodeContests, open-r1) share: telling Python 3
solutions from Python 2 ones, the imports a dataset's harness adds in front of every program, case
text that is published as a list of lines, and the pack.yaml `options:` that tune the comparison.
"""

from __future__ import annotations

import ast
import builtins
import re
import warnings
from collections.abc import Collection, Iterable, Mapping
from dataclasses import replace
from typing import Any

from codegym.tasks.cases import Comparison
from codegym.tasks.formats.base import RowContext

# options every reader here accepts: the comparison, the per-case time limit, and which tasks the
# pack's checker.py judges (all of them when `checker_for` is not given)
COMMON_OPTIONS = ("match", "float_rel", "float_abs", "case_timeout_s", "checker_for")

# names that exist only in Python 2: a solution that uses one without defining it fails under Python 3
# even though it compiles (`raw_input()`, `xrange(n)`)
_PY2_NAMES = frozenset(
    {"raw_input", "xrange", "unichr", "unicode", "long", "basestring", "cmp", "execfile", "reduce", "file"}
)
_PY2_ATTRIBUTES = frozenset({"iteritems", "iterkeys", "itervalues", "has_key", "maxint"})
_BUILTINS = frozenset(dir(builtins))
_TYPING_GENERICS = ("List", "Tuple", "Dict", "Set", "Optional")


def python3_problem(source: str) -> str | None:
    """Why `source` is not a Python 3 program, or None when it is one."""
    if not isinstance(source, str) or not source.strip():
        return "empty"
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")  # invalid escape sequences are common and harmless
            tree = compile(source, "<solution>", "exec", ast.PyCF_ONLY_AST)
    except SyntaxError as exc:
        return f"not Python 3 syntax (line {exc.lineno}: {exc.msg})"
    except (ValueError, RecursionError, MemoryError) as exc:
        return f"cannot be compiled ({type(exc).__name__})"
    free = free_names(tree)
    py2 = sorted(free & _PY2_NAMES)
    attributes = sorted(
        {n.attr for n in ast.walk(tree) if isinstance(n, ast.Attribute) and n.attr in _PY2_ATTRIBUTES}
    )
    if py2 or attributes:
        return "uses Python 2 only " + ", ".join(py2 + [f".{a}" for a in attributes])
    return None


def first_python3(solutions: Iterable[Any]) -> tuple[str, int]:
    """The first solution that is Python 3 ("" if none is) and how many were passed over before it."""
    passed_over = 0
    for solution in solutions:
        if isinstance(solution, str) and python3_problem(solution) is None:
            return solution, passed_over
        passed_over += 1
    return "", passed_over


def free_names(tree: ast.AST) -> set[str]:
    """Names a module reads but never binds and that are not builtins (scopes are not told apart:
    a name bound anywhere counts as bound)."""
    loaded: set[str] = set()
    bound: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Name):
            (loaded if isinstance(node.ctx, ast.Load) else bound).add(node.id)
        elif isinstance(node, ast.arg):
            bound.add(node.arg)
        elif isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            bound.add(node.name)
        elif isinstance(node, ast.alias):
            bound.add((node.asname or node.name).split(".")[0])
        elif isinstance(node, (ast.ExceptHandler, ast.MatchAs, ast.MatchStar)) and node.name:
            bound.add(node.name)
        elif isinstance(node, ast.MatchMapping) and node.rest:
            bound.add(node.rest)
        elif isinstance(node, (ast.Global, ast.Nonlocal)):
            bound.update(node.names)
    return loaded - bound - _BUILTINS


def implicit_imports(source: str, available: Mapping[str, str]) -> str:
    """The import lines (from `available`: name -> line) that `source` relies on without writing them:
    the imports a dataset's harness puts in front of every program, made explicit."""
    try:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            tree = ast.parse(source)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return ""
    lines = dict.fromkeys(available[name] for name in sorted(free_names(tree)) if name in available)
    return "".join(line + "\n" for line in lines)


def with_typing_imports(starter_code: str) -> str:
    """LeetCode starter code annotates with `List[int]` without importing it (the harness does):
    show the import, so that code written from the starter runs on its own."""
    used = [g for g in _TYPING_GENERICS if re.search(rf"\b{g}\[", starter_code)]
    missing = [
        g
        for g in used
        if not re.search(rf"^\s*(from typing import|import typing).*\b{g}\b", starter_code, re.M)
    ]
    if not missing:
        return starter_code
    return f"from typing import {', '.join(missing)}\n\n{starter_code}"


def case_text(value: Any, context: RowContext, *, task: str, field: str) -> str:
    """One case's stdin or stdout: a string, or a list of lines joined with newlines (as APPS's harness
    joins them)."""
    if isinstance(value, str):
        return value
    if isinstance(value, list) and all(isinstance(line, str) for line in value):
        return "\n".join(value)
    raise context.error(
        f"a case must be text or a list of lines, got {type(value).__name__}", task=task, field=field
    )


def check_options(context: RowContext, allowed: Collection[str], *, task: str) -> Mapping[str, Any]:
    """pack.yaml `options:`, with unknown keys an error (a typo must not silently change judging)."""
    unknown = sorted(set(context.options) - set(allowed))
    if unknown:
        raise context.error(
            f"unknown option(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
            task=task,
            field="options",
        )
    return context.options


def comparison_for(context: RowContext, default: Comparison, *, task: str) -> Comparison:
    """`default` with the pack's `match` / `float_rel` / `float_abs` options and its checker."""
    options = context.options
    overrides = {key: options[key] for key in ("match", "float_rel", "float_abs") if key in options}
    checker_for = options.get("checker_for")
    if checker_for is not None and not (
        isinstance(checker_for, list) and all(isinstance(t, (str, int)) for t in checker_for)
    ):
        raise context.error("must be a list of task ids", task=task, field="options.checker_for")
    if context.checker is not None and (checker_for is None or task in {str(t) for t in checker_for}):
        overrides["checker"] = context.checker
    try:
        return replace(default, **overrides)
    except (TypeError, ValueError) as exc:
        raise context.error(str(exc), task=task, field="options") from None


def case_timeout(context: RowContext, default: float, *, task: str) -> float:
    """The per-case time limit: the pack's `case_timeout_s` option, else `default`."""
    value = context.options.get("case_timeout_s", default)
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not value > 0:
        raise context.error(f"must be a number > 0, got {value!r}", task=task, field="options.case_timeout_s")
    return float(value)
