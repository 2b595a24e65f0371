"""EvalPlus's judging rules (HumanEval+, MBPP+), for the reader and tests.

The implementation is codegym/sandbox/inside/evalplus_oracles.py: pure standard library, because the
sandbox's harness imports it to judge each case (as it does casedata.py); see its docstring.
"""

from codegym.sandbox.inside.evalplus_oracles import (
    DEFAULT_FLOAT_ATOL,
    ORACLES,
    REL_TOL,
    allclose,
    digit_distance_padded,
    float_fallback,
    is_floats,
    judge,
    poly,
    same,
    surface_area_other,
    to_builtin,
)

__all__ = [
    "DEFAULT_FLOAT_ATOL",
    "ORACLES",
    "REL_TOL",
    "allclose",
    "digit_distance_padded",
    "float_fallback",
    "is_floats",
    "judge",
    "poly",
    "same",
    "surface_area_other",
    "to_builtin",
]
