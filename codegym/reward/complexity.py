"""The `complexity` component: radon cyclomatic complexity and maintainability index, relative to
the task's reference solution (as simple as the reference, or simpler, scores 1)."""

from __future__ import annotations

from dataclasses import dataclass

from radon.metrics import mi_compute, mi_parameters


@dataclass(frozen=True)
class ComplexityReport:
    cyclomatic: int  # radon's total cyclomatic complexity of the module
    maintainability: float  # 0..100, higher is better


def complexity_report(code: str) -> ComplexityReport | None:
    """One parse for both metrics (radon's mi_visit would compute the complexity a second time)."""
    try:
        volume, cyclomatic, lloc, comments = mi_parameters(code, count_multi=True)
        maintainability = float(mi_compute(volume, cyclomatic, lloc, comments))
    except (SyntaxError, ValueError, RecursionError, MemoryError, ZeroDivisionError):
        return None
    return ComplexityReport(int(cyclomatic), maintainability)


def complexity_score(generated: ComplexityReport | None, reference: ComplexityReport | None) -> float:
    """mean(min(1, cc_ref / cc_gen), min(1, mi_gen / mi_ref)); unparseable code scores 0."""
    if generated is None:
        return 0.0
    if reference is None:
        return 1.0
    cc = min(1.0, max(reference.cyclomatic, 1) / max(generated.cyclomatic, 1))
    mi = (
        1.0
        if reference.maintainability <= 0
        else min(1.0, generated.maintainability / reference.maintainability)
    )
    return (cc + mi) / 2
