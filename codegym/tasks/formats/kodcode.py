"""KodCode (Xu et al. 2025; KodCode-V1, KodCode-Light-RL-10K): synthetic questions, each with a verified
solution and a pytest file.

Rows: `question_id`, `question`, `solution`, `test` (pytest source; `test_code` in the pipeline's own
files), `test_info` (a list of `{function_name, function_declaration, parameter_list, docstring}`, or
null for class-based questions), `subset`, `style`, `gpt_difficulty`, `gpt_pass_percentage`, ...

KodCode's harness writes the candidate to `solution.py` and the test to `test_solution.py` as
`"from solution import *\\n\\n" + test`, then runs pytest: many tests call the candidate without
importing it. The test module here is built the same way; the harness serves the star import
through its proxy (public names of the program, never ones that would shadow a builtin or a module).
"""

from __future__ import annotations

import ast
from collections.abc import Mapping
from typing import Any

from codegym.tasks.formats.base import (
    DatasetFormat,
    RowContext,
    SkipRow,
    checked_row_id,
    loads_field,
    tested_by_files_task,
)
from codegym.tasks.model import Task

TEST_FILE = "test_hidden.py"
STAR_IMPORT = "from solution import *\n\n"  # what KodCode's harness prepends to every test
FIELDS = "question_id, question, solution, test (or test_code), test_info, subset, style, gpt_difficulty"


def row_id(row: Mapping[str, Any]) -> str:
    value = row["question_id"]
    if not isinstance(value, str) or not value.strip():
        raise ValueError("question_id must be a non-empty string")
    return value


def _text(row: Mapping[str, Any], name: str, context: RowContext, task: str) -> str:
    value = row.get(name)
    if not isinstance(value, str):
        raise context.error(f"must be a string, got {type(value).__name__}", task=task, field=name)
    return value.replace("\r\n", "\n")


def _functions(row: Mapping[str, Any], context: RowContext, task: str) -> list[Mapping[str, Any]]:
    info = loads_field(row, "test_info", context, task)  # a list in the parquet files, JSON in some exports
    if info is None:
        return []
    if isinstance(info, Mapping):
        info = [info]
    if not isinstance(info, list) or not all(isinstance(item, Mapping) for item in info):
        raise context.error(
            "must be a list of {function_name, function_declaration, ...}", task=task, field="test_info"
        )
    return [item for item in info if isinstance(item.get("function_name"), str) and item["function_name"]]


def _imported_from_solution(tree: ast.Module) -> list[str]:
    return [
        alias.name
        for node in tree.body
        if isinstance(node, ast.ImportFrom) and node.module == "solution" and node.level == 0
        for alias in node.names
        if alias.name != "*"
    ]


def _defined(tree: ast.Module) -> list[str]:
    return [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]


# What acts on the process running the test: under codegym's split the program is another process,
# so capturing or replacing stdout/stdin, patching builtins, or a temporary file made there (in a
# directory only the harness can read) never reaches the program — a correct one would fail.
PROCESS_LOCAL_FIXTURES = frozenset(
    {
        "capsys",
        "capsysbinary",
        "capfd",
        "capfdbinary",
        "tmp_path",
        "tmpdir",
        "tmp_path_factory",
        "tmpdir_factory",
        "monkeypatch",
    }
)
PROCESS_LOCAL_NAMES = frozenset(
    {
        "redirect_stdout",
        "redirect_stderr",
        "MonkeyPatch",
        "tempfile",
        "TemporaryDirectory",
        "NamedTemporaryFile",
    }
)
PROCESS_LOCAL_TARGETS = ("builtins.", "sys.stdin", "sys.stdout", "sys.stderr", "__builtin__.")


def _process_local_fixtures(tree: ast.Module) -> list[str]:
    """What in a test file acts on the test's own process: a process-local fixture asked for (as a
    parameter, or by name in `usefixtures`/`getfixturevalue`), a patch of builtins or of sys's
    streams (`mock.patch("builtins.input")`, `sys.stdout = StringIO()`, `patch.object(sys, ...)`),
    stream redirection, or temporary files."""
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.arg) and node.arg in PROCESS_LOCAL_FIXTURES:
            found.add(node.arg)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if node.value in PROCESS_LOCAL_FIXTURES:
                found.add(node.value)
            elif node.value.startswith(PROCESS_LOCAL_TARGETS):
                found.add(f"patches {node.value}")
        elif isinstance(node, (ast.Name, ast.Attribute, ast.alias)):
            name = (
                node.id
                if isinstance(node, ast.Name)
                else node.attr
                if isinstance(node, ast.Attribute)
                else node.name
            )
            if name in PROCESS_LOCAL_NAMES:
                found.add(name)
        if isinstance(node, (ast.Assign, ast.AugAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            for target in targets:
                if (
                    isinstance(target, ast.Attribute)
                    and isinstance(target.value, ast.Name)
                    and target.value.id == "sys"
                    and target.attr in ("stdin", "stdout", "stderr")
                ):
                    found.add(f"replaces sys.{target.attr}")
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "object":
            first = node.args[0] if node.args else None
            if isinstance(first, ast.Name) and first.id in ("builtins", "sys"):
                found.add(f"patches {first.id}")
    return sorted(found)


def kodcode_prompt(question: str, functions: list[Mapping[str, Any]]) -> str:
    """The question, and the signature the tests call (as the KodCode RL recipes add it)."""
    prompt = question.strip()
    declarations = [str(f.get("function_declaration") or f["function_name"]).strip() for f in functions]
    if declarations:
        prompt += (
            "\n\nNote that the output function should be " + "; ".join(f"`{d}`" for d in declarations) + "."
        )
    return prompt


def task_from_row(row: Mapping[str, Any], context: RowContext) -> Task:
    task = checked_row_id(row, context, "question_id", row_id)
    question = _text(row, "question", context, task)
    solution = _text(row, "solution", context, task)
    test_field = "test" if "test" in row else "test_code"
    test = _text(row, test_field, context, task)
    if not question.strip():
        raise context.error("is empty", task=task, field="question")
    if not test.strip():
        raise SkipRow("the test is empty: nothing would judge the program")
    try:
        test_tree = ast.parse(test)
    except SyntaxError as exc:
        raise SkipRow(f"{test_field} is not valid Python 3 (line {exc.lineno}: {exc.msg})") from None
    local = _process_local_fixtures(test_tree)
    if local:
        raise SkipRow(
            f"its tests act on the test's own process ({', '.join(local)}): the program runs in "
            "another, so its output, input, files and patched builtins would never reach them"
        )
    try:
        solution_tree = ast.parse(solution)
    except SyntaxError as exc:
        raise SkipRow(f"solution is not valid Python 3 (line {exc.lineno}: {exc.msg})") from None
    functions = _functions(row, context, task)
    defined = _defined(solution_tree)
    candidates = [f["function_name"] for f in functions] + _imported_from_solution(test_tree) + defined
    entry = next((name for name in candidates if name in defined), None)
    metadata = {"format": "kodcode"}
    for name in ("subset", "style", "gpt_difficulty", "gpt_pass_percentage", "version"):
        if isinstance(row.get(name), (str, int, float)) and not isinstance(row.get(name), bool):
            metadata[name] = row[name]
    return tested_by_files_task(
        context=context,
        task_id=task,
        prompt=kodcode_prompt(question, functions),
        reference=solution if solution.endswith("\n") else solution + "\n",
        hidden={TEST_FILE: STAR_IMPORT + test},
        entry_point=entry,
        metadata=metadata,
    )


FORMATS = {
    "kodcode": DatasetFormat(
        name="kodcode",
        description="KodCode (KodCode-V1, KodCode-Light-RL): question, verified solution and a pytest file",
        fields=FIELDS,
        task_from_row=task_from_row,
        row_id=row_id,
    )
}
