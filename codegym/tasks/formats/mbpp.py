"""MBPP (Austin et al. 2021): the original `mbpp.jsonl` and the hand-verified `sanitized-mbpp.json`.

Original rows: `task_id` (int), `text`, `code`, `test_list`, `test_setup_code`, `challenge_test_list`.
Sanitized rows (a JSON array): `prompt` instead of `text`, `test_imports`, `source_file`, no challenge
tests. Both are judged as MBPP's harness does: the asserts run against the candidate's functions.

What differs from MBPP's `exec(setup + code + tests)` in one namespace: the candidate is a separate
program. The test module imports from it only the names the asserts and the setup use that the
reference defines (the entry point, a `Node` class the setup builds trees with, a constant), and runs
`test_imports` and `test_setup_code` itself, so the candidate's other globals never enter the tests'
namespace. Imports the reference makes and the asserts rely on (`math` in `math.isclose(...)`) are
repeated in the test module from the standard library, never taken from the program.
"""

from __future__ import annotations

import ast
from collections.abc import Mapping, Sequence
from typing import Any

from codegym.tasks.formats.base import (
    DatasetFormat,
    RowContext,
    SkipRow,
    checked_row_id,
    tested_by_files_task,
)
from codegym.tasks.model import Task

HIDDEN_FILE = "test_hidden.py"
VISIBLE_FILE = "test_visible.py"
FIELDS = (
    "task_id, text (original) | prompt (sanitized), code, test_list, test_setup_code, "
    "challenge_test_list (original), test_imports (sanitized)"
)


def normalise_source(code: str) -> str:
    """MBPP's references mostly use CRLF line endings, many indent with tabs and some mix tabs and
    spaces (fine in Python 2, a TabError in Python 3): LF endings, and when the mix does not compile,
    leading tabs expanded to the next multiple of 8, which is how Python 2 read them."""
    text = code.replace("\r\n", "\n").replace("\r", "\n")
    try:
        compile(text, "<mbpp>", "exec", dont_inherit=True)
    except (TabError, IndentationError):
        return "\n".join(_expand_leading_tabs(line) for line in text.split("\n"))
    except SyntaxError:
        pass  # reported by the caller, with the row's task and field
    return text


def _expand_leading_tabs(line: str) -> str:
    body = line.lstrip(" \t")
    return line[: len(line) - len(body)].expandtabs(8) + body


def _parse(source: str, field: str) -> ast.Module:
    try:
        return ast.parse(source)
    except SyntaxError as exc:
        raise SkipRow(f"{field} is not valid Python 3 (line {exc.lineno}: {exc.msg})") from None


def _string_list(row: Mapping[str, Any], name: str, context: RowContext, task: str) -> list[str]:
    value = row.get(name)
    if value is None:
        return []
    if isinstance(value, str) or not isinstance(value, Sequence):
        raise context.error(f"must be a list of strings, got {type(value).__name__}", task=task, field=name)
    for item in value:
        if not isinstance(item, str):
            raise context.error(f"must hold only strings, got {item!r:.60}", task=task, field=name)
    return [normalise_source(item).strip() for item in value if item.strip()]


def _bound_names(tree: ast.Module) -> set[str]:
    """Names a block of top-level statements binds (defs, classes, assignments, imports)."""
    names: set[str] = set()
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            names.add(node.name)
        elif isinstance(node, (ast.Import, ast.ImportFrom)):
            names.update((a.asname or a.name).split(".")[0] for a in node.names if a.name != "*")
        else:
            for child in ast.walk(node):
                if isinstance(child, ast.Name) and isinstance(child.ctx, ast.Store):
                    names.add(child.id)
    return names


def _used_names(trees: Sequence[ast.AST]) -> list[str]:
    """Names read by the tests, in order of first use."""
    seen: dict[str, None] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Name) and isinstance(node.ctx, ast.Load):
                seen.setdefault(node.id, None)
    return list(seen)


def _called_names(trees: Sequence[ast.AST]) -> list[str]:
    counts: dict[str, int] = {}
    for tree in trees:
        for node in ast.walk(tree):
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Name):
                counts[node.func.id] = counts.get(node.func.id, 0) + 1
    return sorted(counts, key=lambda name: -counts[name])  # stable: ties keep first-call order


def _reference_imports(reference: ast.Module, names: set[str]) -> list[str]:
    """The reference's own top-level import statements that bind a name the tests read."""
    kept = []
    for node in reference.body:
        if isinstance(node, (ast.Import, ast.ImportFrom)):
            aliases = [a for a in node.names if (a.asname or a.name).split(".")[0] in names]
            if aliases:
                copy = (
                    ast.Import(names=aliases)
                    if isinstance(node, ast.Import)
                    else ast.ImportFrom(module=node.module, names=aliases, level=node.level)
                )
                kept.append(ast.unparse(copy))
    return kept


def _test_functions(tests: Sequence[ast.Module], prefix: str) -> list[str]:
    parts = []
    for number, tree in enumerate(tests, 1):
        body = "\n".join("    " + line for line in ast.unparse(tree).splitlines()) or "    pass"
        parts.append(f"def {prefix}{number}():\n{body}\n")
    return parts


def build_test_module(
    *,
    program_names: Sequence[str],
    imports: Sequence[str],
    setup: str,
    tests: Sequence[ast.Module],
    challenge: Sequence[ast.Module] = (),
) -> str:
    """A pytest-style module: one `test_*` per assert (challenge asserts as `test_challenge_*`)."""
    head = []
    if program_names:
        head.append(f"from solution import {', '.join(program_names)}  # the program's, through the harness")
    head.extend(imports)
    if setup.strip():
        head.append("# MBPP's test_setup_code, run here (not in the program)")
        head.append(setup.strip())
    functions = _test_functions(tests, "test_") + _test_functions(challenge, "test_challenge_")
    return "\n".join(head) + "\n\n\n" + "\n\n".join(functions)


def mbpp_prompt(text: str, tests: Sequence[str], setup: str = "") -> str:
    """MBPP's prompt: the task, then "Your code should pass these tests:" and the asserts. Rows with
    setup code (trees built from the candidate's `Node`) also show it: without it the asserts'
    names cannot be understood."""
    prompt = f"{text.strip()} Your code should pass these tests:\n\n" + "\n".join(tests)
    if setup.strip():
        prompt += f"\n\nThe tests first run this setup code:\n\n{setup.strip()}"
    return prompt


def row_id(row: Mapping[str, Any]) -> str:
    task_id = row["task_id"]
    if isinstance(task_id, bool) or not isinstance(task_id, (int, str)):
        raise TypeError("task_id must be an integer or a string")
    return str(task_id)


def _option_flag(context: RowContext, name: str) -> bool:
    value = context.options.get(name, False)
    if not isinstance(value, bool):
        raise context.error(f"must be true or false, got {value!r}", field=f"options.{name}")
    return value


def task_from_row(row: Mapping[str, Any], context: RowContext) -> Task:
    task = checked_row_id(row, context, "task_id", row_id)
    sanitized = "prompt" in row and "text" not in row
    text_field = "prompt" if sanitized else "text"
    for name in (text_field, "code"):
        if not isinstance(row.get(name), str) or not row[name].strip():
            raise context.error("must be a non-empty string", task=task, field=name)
    test_list = _string_list(row, "test_list", context, task)
    if not test_list:
        raise SkipRow("test_list is empty: nothing would judge the program")
    challenge_list = (
        _string_list(row, "challenge_test_list", context, task)
        if _option_flag(context, "challenge_tests")
        else []
    )
    test_imports = _string_list(row, "test_imports", context, task)
    setup_value = row.get("test_setup_code") or ""
    if not isinstance(setup_value, str):
        raise context.error("must be a string", task=task, field="test_setup_code")
    setup = normalise_source(setup_value).strip()

    reference = normalise_source(row["code"]).strip() + "\n"
    reference_tree = _parse(reference, "code")
    tests = [_parse(t, "test_list") for t in test_list]
    challenge = [_parse(t, "challenge_test_list") for t in challenge_list]
    setup_tree = _parse(setup, "test_setup_code")
    imports_tree = _parse("\n".join(test_imports), "test_imports")

    defined = _bound_names(reference_tree)
    defined_callables = {
        n.name
        for n in reference_tree.body
        if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    entry = next((name for name in _called_names(tests) if name in defined_callables), None)
    if entry is None:
        raise SkipRow("the asserts call no function that the reference defines")
    harness_bound = _bound_names(setup_tree) | _bound_names(imports_tree)
    used = [n for n in _used_names([*tests, *challenge, setup_tree]) if n not in harness_bound]
    reference_imports = {
        (a.asname or a.name).split(".")[0]
        for node in reference_tree.body
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for a in node.names
    }
    from_program = [n for n in used if n in defined and n not in reference_imports]
    imports = [*test_imports, *_reference_imports(reference_tree, set(used))]

    def module(with_challenge: bool) -> str:
        return build_test_module(
            program_names=from_program,
            imports=imports,
            setup=setup,
            tests=tests,
            challenge=challenge if with_challenge else (),
        )

    # the prompt already lists the visible asserts (MBPP's own prompt): a prompt builder need not repeat them
    metadata: dict[str, Any] = {
        "format": "mbpp",
        "variant": "sanitized" if sanitized else "original",
        "prompt_shows_visible_tests": True,
    }
    if sanitized and isinstance(row.get("source_file"), str):
        metadata["source_file"] = row["source_file"]
    if challenge:
        metadata["challenge_tests"] = len(challenge)
    return tested_by_files_task(
        context=context,
        task_id=task,
        prompt=mbpp_prompt(row[text_field], test_list, setup),
        reference=reference,
        hidden={HIDDEN_FILE: module(True)},
        visible={VISIBLE_FILE: module(False)},
        entry_point=entry,
        metadata=metadata,
    )


FORMATS = {
    "mbpp": DatasetFormat(
        name="mbpp",
        description="MBPP (mbpp.jsonl or sanitized-mbpp.json): asserts against the candidate's function",
        fields=FIELDS,
        task_from_row=task_from_row,
        row_id=row_id,
    )
}
