"""The `complexity` component: cyclomatic complexity of the code the model wrote, relative to the
reference solution's for the same lines (as simple as the reference, or simpler, scores 1).

Decisions are counted as radon 6 counts them (`ComplexityVisitor`: `if`, conditional expressions,
each extra operand of `and`/`or`, loops and their `else`, `except` handlers and a `try`'s `else`,
`match` cases but a catch-all, comprehensions and their `if`s, `assert`), but in one walk over the
whole tree, so that no place is out of sight and none is seen twice: each function counts 1 plus
the decisions of its body (a lambda's or a comprehension's decisions belong to the body they sit
in; a nested function's or class's own body is its own). Decisions outside every function body
count too: module-level code (lambdas, comprehensions), a class body outside its methods,
decorators, base classes, parameter defaults and annotations. Radon's blocks leave all of these
out (and the methods of a class nested in a function or a class, and list each method twice), so
branches moved there were free (red team round 18, W4). Where radon sees everything the count is
radon's, but for two places it does not look into either: the operands of an `assert`'s test and
`except*` handlers count here. Only generated code counts: the functions whose bodies end at
or after the first generated line (for a completion, the function the prompt opened; for a whole
file, every function) and the decisions outside function bodies on generated lines; the prompt's
helpers and docstrings never move the score. Code the program builds at runtime is out of sight of
every static measure: see hidden_code.py. Radon's maintainability index is not used: over a whole
file it counts the prompt's docstring as the program's comments, and over a function body alone it
is not defined.
"""

from __future__ import annotations

import ast
from dataclasses import dataclass

from codegym.reward.hidden_code import hides_code as hides_code  # re-exported: scoring and tests use it here


@dataclass(frozen=True)
class ComplexityReport:
    cyclomatic: int  # generated functions' complexity plus the generated decisions outside them (at least 1)
    functions: int  # how many functions that covers


_FUNCTIONS = (ast.FunctionDef, ast.AsyncFunctionDef)
_TRIES = (ast.Try, *((ast.TryStar,) if hasattr(ast, "TryStar") else ()))


def _decisions(node: ast.AST) -> int:
    """The decisions `node` itself adds, by radon 6's rules (ComplexityVisitor.generic_visit)."""
    if isinstance(node, _TRIES):
        return len(node.handlers) + bool(node.orelse)
    if isinstance(node, ast.BoolOp):
        return len(node.values) - 1
    if isinstance(node, ast.If | ast.IfExp | ast.Assert):
        return 1
    if isinstance(node, ast.Match):
        catch_all = any(getattr(case.pattern, "pattern", False) is None for case in node.cases)
        return max(0, len(node.cases) - catch_all)
    if isinstance(node, ast.For | ast.AsyncFor | ast.While):
        return 1 + bool(node.orelse)
    if isinstance(node, ast.comprehension):
        return 1 + len(node.ifs)
    return 0


def parse_or_none(code: str) -> ast.Module | None:
    """The code's tree, or None when it does not parse."""
    try:
        return ast.parse(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None


def complexity_report(
    code: str, first_line: int = 1, tree: ast.Module | None = None
) -> ComplexityReport | None:
    """Cyclomatic complexity of the functions whose bodies end at or after `first_line`, plus the
    decisions outside every function body that lie on lines from `first_line` on. `tree`: the
    code's own tree, when the caller parsed it."""
    if tree is None:
        tree = parse_or_none(code)
        if tree is None:
            return None
    functions = inside = outside = 0
    # (node, whether the function whose body holds it is generated (None outside every body), the
    # line it starts on: a comprehension has none of its own, it takes its expression's)
    stack: list[tuple[ast.AST, bool | None, int]] = [(tree, None, 0)]
    while stack:
        node, generated, line = stack.pop()
        line = getattr(node, "lineno", line)
        weight = _decisions(node)
        if generated:
            inside += weight
        elif generated is None and line >= first_line:
            outside += weight
        if isinstance(node, _FUNCTIONS):
            own = (node.end_lineno or node.lineno) >= first_line
            functions += own
            # its decorators, defaults and annotations are evaluated where the def stands: they
            # belong to the enclosing body (or to none); only its body is its own
            for field, value in ast.iter_fields(node):
                for child in value if isinstance(value, list) else [value]:
                    if isinstance(child, ast.AST):
                        stack.append((child, own if field == "body" else generated, line))
        else:
            stack.extend((child, generated, line) for child in ast.iter_child_nodes(node))
    return ComplexityReport(max(functions, 1) + inside + outside, functions)


def complexity_score(generated: ComplexityReport | None, reference: ComplexityReport | None) -> float | None:
    """min(1, cc_ref / cc_gen); unparseable code scores 0; without a reference (none, or one that
    fails its own tests) there is nothing to compare with: None, dropped from the mean."""
    if generated is None:
        return 0.0
    if reference is None:
        return None
    return min(1.0, max(reference.cyclomatic, 1) / max(generated.cyclomatic, 1))
