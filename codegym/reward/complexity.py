"""The `complexity` component: radon's cyclomatic complexity of the code the model wrote, relative to
the reference solution's for the same lines (as simple as the reference, or simpler, scores 1).

Only the functions whose bodies lie in the generated part count (for a completion, the function the
prompt opened; for a whole file, every function): the prompt's helpers and docstrings never move the
score. The decisions of module-level code count too (conditional expressions in module-level
lambdas, comprehensions): branches moved out of functions would otherwise be free. Code the program
builds at runtime is out of sight of every static measure: see hidden_code.py. Radon's
maintainability index is not used: over a whole file it counts the prompt's docstring as the
program's comments, and over a function body alone it is not defined.
"""

from __future__ import annotations

from dataclasses import dataclass

from radon.visitors import ComplexityVisitor

from codegym.reward.hidden_code import hides_code as hides_code  # re-exported: scoring and tests use it here


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


def complexity_score(generated: ComplexityReport | None, reference: ComplexityReport | None) -> float | None:
    """min(1, cc_ref / cc_gen); unparseable code scores 0; without a reference (none, or one that
    fails its own tests) there is nothing to compare with: None, dropped from the mean."""
    if generated is None:
        return 0.0
    if reference is None:
        return None
    return min(1.0, max(reference.cyclomatic, 1) / max(generated.cyclomatic, 1))
