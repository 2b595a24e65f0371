"""The `complexity` component: radon's cyclomatic complexity of the code the model wrote, relative to
the reference solution's for the same lines (as simple as the reference, or simpler, scores 1).

Only the functions whose bodies lie in the generated part count (for a completion, the function the
prompt opened; for a whole file, every function): the prompt's helpers and docstrings never move the
score. Radon's maintainability index is not used: over a whole file it counts the prompt's docstring
as the program's comments, and over a function body alone it is not defined.
"""

from __future__ import annotations

from dataclasses import dataclass

from radon.complexity import cc_visit


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
        blocks = cc_visit(code)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    generated = [
        b for b in _blocks(blocks) if not hasattr(b, "methods") and getattr(b, "endline", 0) >= first_line
    ]
    if not generated:
        return ComplexityReport(1, 0)
    return ComplexityReport(sum(b.complexity for b in generated), len(generated))


def complexity_score(generated: ComplexityReport | None, reference: ComplexityReport | None) -> float:
    """min(1, cc_ref / cc_gen); unparseable code scores 0."""
    if generated is None:
        return 0.0
    if reference is None:
        return 1.0
    return min(1.0, max(reference.cyclomatic, 1) / max(generated.cyclomatic, 1))
