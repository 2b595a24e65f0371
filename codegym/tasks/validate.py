"""Static checks of a task (no code runs here): files parse, names line up, paths are safe."""

from __future__ import annotations

import ast

from codegym.tasks.model import Task


def _parse_problem(source: str, label: str) -> str | None:
    try:
        ast.parse(source)
    except SyntaxError as exc:
        return f"{label}: syntax error at line {exc.lineno}: {exc.msg}"
    return None


def _defines(source: str, name: str) -> bool:
    tree = ast.parse(source)
    for node in tree.body:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)) and node.name == name:
            return True
        if isinstance(node, ast.Assign) and any(
            isinstance(t, ast.Name) and t.id == name for t in node.targets
        ):
            return True
        if isinstance(node, (ast.Import, ast.ImportFrom)) and any(
            (alias.asname or alias.name.split(".")[0]) == name for alias in node.names
        ):
            return True
    return False


def static_problems(task: Task) -> list[str]:
    """Everything wrong with the task that can be seen without running it."""
    problems: list[str] = []
    reference_problem = _parse_problem(task.reference_solution, "reference solution")
    if reference_problem:
        problems.append(reference_problem)
    for suite_name, suite in (("hidden tests", task.hidden_tests), ("visible tests", task.visible_tests)):
        for filename, source in suite.files.items():
            problem = _parse_problem(source, f"{suite_name} {filename}")
            if problem:
                problems.append(problem)
            if filename in task.repo_files or filename == task.solution_path:
                problems.append(f"{suite_name} file {filename!r} collides with a repo file")
    if not task.hidden_tests and task.cases is None:
        problems.append("no hidden tests")
    if task.prefix and not task.reference_solution.startswith(task.prefix):
        problems.append("reference solution does not start with the starter code, so completion mode differs")
    has_reference = bool(task.reference_solution.strip())
    if (
        task.entry_point
        and has_reference
        and not reference_problem
        and not _defines(task.reference_solution, task.entry_point)
    ):
        problems.append(
            f"entry_point {task.entry_point!r} is not defined at the top of the reference solution"
        )
    if not task.prompt.strip():
        problems.append("empty prompt")
    return problems


def stub_for(task: Task) -> str:
    """A trivially wrong solution: stdin/stdout programs print nothing; otherwise the reference with
    its bodies replaced by `pass` (or, with no reference, the called function returning None)."""
    if task.cases is not None and task.cases.kind == "stdio":
        return ""
    if task.reference_solution.strip():
        return stub_solution(task.reference_solution)
    function = (task.cases.function if task.cases is not None else task.entry_point) or "solve"
    if "." in function:
        owner, method = function.split(".", 1)
        return f"class {owner}:\n    def {method}(self, *args):\n        return None\n"
    return f"def {function}(*args):\n    return None\n"


def stub_solution(source: str) -> str:
    """The reference with every function body replaced by `pass` (docstrings kept): a trivially
    wrong solution that the hidden tests must reject."""
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            first = node.body[0] if node.body else None
            keep = [first] if isinstance(first, ast.Expr) and isinstance(first.value, ast.Constant) else []
            node.body = [*keep, ast.Pass()]
    return ast.unparse(ast.fix_missing_locations(tree)) + "\n"
