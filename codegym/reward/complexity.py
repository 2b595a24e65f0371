"""The `complexity` component: radon cyclomatic complexity and maintainability index, relative to
the task's reference solution (as simple as the reference, or simpler, scores 1)."""

from __future__ import annotations

from dataclasses import dataclass

from radon.complexity import cc_visit
from radon.metrics import mi_visit
from radon.visitors import Function


@dataclass(frozen=True)
class ComplexityReport:
    cyclomatic: int  # sum over functions and methods
    maintainability: float  # 0..100, higher is better


def complexity_report(code: str) -> ComplexityReport | None:
    try:
        blocks = cc_visit(code)
        maintainability = float(mi_visit(code, multi=True))
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return None
    return ComplexityReport(sum(b.complexity for b in blocks if isinstance(b, Function)), maintainability)


def complexity_score(generated: ComplexityReport | None, reference: ComplexityReport | None) -> float:
    """mean(min(1, cc_ref / cc_gen), min(1, mi_gen / mi_ref)); unparseable code scores 0."""
    if generated is None:
        return 0.0
    if reference is None:
        return 1.0
    cc = min(1.0, max(reference.cyclomatic, 1) / max(generated.cyclomatic, 1))
    mi = 1.0 if reference.maintainability <= 0 else min(1.0, generated.maintainability / reference.maintainability)
    return (cc + mi) / 2
