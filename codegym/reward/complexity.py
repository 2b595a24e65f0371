"""The `complexity` component: radon's cyclomatic complexity of the code the model wrote, relative to
the reference solution's for the same lines (as simple as the reference, or simpler, scores 1).

Only the functions whose bodies lie in the generated part count (for a completion, the function the
prompt opened; for a whole file, every function): the prompt's helpers and docstrings never move the
score. The decisions of module-level code count too (conditional expressions in module-level
lambdas, comprehensions): branches moved out of functions would otherwise be free. Code the program
builds at runtime (`exec`, `eval`, `compile`) is out of sight of every static measure: see
`hides_code`. Radon's maintainability index is not used: over a whole file it counts the prompt's
docstring as the program's comments, and over a function body alone it is not defined.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from radon.visitors import ComplexityVisitor

CODE_BUILDERS = frozenset({"exec", "eval", "compile"})


@dataclass(frozen=True)
class ComplexityReport:
    cyclomatic: int  # total cyclomatic complexity of the generated functions (module-level code counts 1)
    functions: int  # how many functions that covers


def _blocks(blocks):
    for block in blocks:
        yield block
        yield from _blocks(getattr(block, "methods", ()) or ())
        yield from _blocks(getattr(block, "closures", ()) or ())


def complexity_report(code: str, first_line: int = 1) -> ComplexityReport | None:
    """Cyclomatic complexity of the functions whose bodies end at or after `first_line`."""
    try:
        visitor = ComplexityVisitor.from_code(code)  # one parse: cc_visit(code) is its .blocks
        blocks, module_decisions = visitor.blocks, visitor.complexity - 1
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    generated = [
        b for b in _blocks(blocks) if not hasattr(b, "methods") and getattr(b, "endline", 0) >= first_line
    ]
    if not generated:
        return ComplexityReport(1 + module_decisions, 0)
    return ComplexityReport(sum(b.complexity for b in generated) + module_decisions, len(generated))


def hides_code(tree: ast.Module | None, first_line: int = 1) -> bool:
    """Whether the generated lines build code at runtime — any `exec` or `compile`, or an `eval` of
    a string written in the program (a literal, `__doc__`, a name only ever bound to literals) —
    which is out of sight of ruff, radon and the file's coverage: the program's style, complexity
    and coverage cannot be measured then (scored 0, never dropped: a dropped component would leave
    the measured ones, all at their best, to make the whole quality score). `eval` of data the
    program computed (`eval(expression)` of an arithmetic string it built) is not that."""
    if tree is None:
        return False
    assigned: dict[str, bool] = {}  # name -> bound to string literals only
    for node in ast.walk(tree):
        targets = node.targets if isinstance(node, ast.Assign) else []
        if isinstance(node, (ast.AnnAssign, ast.AugAssign)):
            targets = [node.target]
        literal = isinstance(getattr(node, "value", None), ast.Constant) and isinstance(node.value.value, str)
        for target in targets:
            if isinstance(target, ast.Name):
                assigned[target.id] = (
                    assigned.get(target.id, True) and literal and not isinstance(node, ast.AugAssign)
                )
    for node in ast.walk(tree):
        if not (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in CODE_BUILDERS
            and getattr(node, "lineno", 0) >= first_line
        ):
            continue
        if node.func.id != "eval":
            return True
        argument = node.args[0] if node.args else None
        if isinstance(argument, ast.Constant) and isinstance(argument.value, str):
            return True
        if isinstance(argument, ast.Name) and (argument.id == "__doc__" or assigned.get(argument.id)):
            return True
    return False


def complexity_score(generated: ComplexityReport | None, reference: ComplexityReport | None) -> float:
    """min(1, cc_ref / cc_gen); unparseable code scores 0."""
    if generated is None:
        return 0.0
    if reference is None:
        return 1.0
    return min(1.0, max(reference.cyclomatic, 1) / max(generated.cyclomatic, 1))
