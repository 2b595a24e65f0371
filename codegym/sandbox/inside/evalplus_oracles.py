"""EvalPlus's judging rules (HumanEval+, MBPP+) as plain functions: the reference the harness calls.

EvalPlus compares a returned value `out` with the reference's `exp` in two steps (evalplus/eval,
`unsafe_execute`): first a match — Python's `out == exp`, or a task's special oracle — and, when that
fails, a float fallback: with a tolerance `atol` (the row's, or 1e-6 when it is 0 and `exp` is a float
or a non-empty flat list/tuple of floats) the answer passes when it has exactly `exp`'s type (and
length) and is `np.allclose(out, exp, rtol=1e-7, atol=atol)`. Any exception fails the case.

Oracles (the `Comparison.oracle` names; each `(args, expected, actual, atol) -> bool`):

- `evalplus_equal`: the rule above with `out == exp` (tuples and lists differ, as in Python).
- `set`: `set(out) == set(exp)`, then the float fallback (MBPP+ tasks whose order is free).
- `is_not_none`: `exp` is the bool "the reference returned something other than None" (MBPP+ regex
  tasks whose match objects are not data); a bool answer must equal it, any other answer passes when
  `(out is not None) == exp`.
- `returns`: any answer passes (Mbpp/164 `are_equivalent`, whose reference is ambiguous); the call
  must still return.
- `equal_or_zero`: equal, or 0 (Mbpp/295 `sum_div`).
- `mbpp_surface_area`: equal, or within `atol` of the other reading of "height" (Mbpp/581).
- `mbpp_digit_distance`: equal, or the zero-padded digit distance (Mbpp/558).
- `poly_root`: `abs(poly(args[0], out)) <= atol`, whatever `exp` is (HumanEval/32 `find_zero`: any
  root passes).

Deviations, on purpose: NaN equals NaN (EvalPlus's `==` never matches a NaN computed in another
process, which would make the case unpassable), and the 1e-6 default tolerance applies per case
(EvalPlus's loop keeps it for every later case of the run once one expected float set it).

`actual` is the value the program returned as the harness received it: it is first copied into
builtin types at C level (tuples stay tuples), so no method of the program's classes runs while it is
judged. Pure standard library, no codegym imports: the harness (caserun.py) judges call cases with
it for every oracle named here except `set`, which compare.py's `set` judges (the same rule, without
EvalPlus's float fallback, which only matters for float elements); codegym imports it through
codegym/tasks/formats/evalplus_oracles.py.
"""

import math

REL_TOL = 1e-7  # the rtol EvalPlus passes to np.allclose
DEFAULT_FLOAT_ATOL = 1e-6  # EvalPlus's tolerance for expected floats when the task's atol is 0
MAX_DEPTH = 200

_NUMBERS = (bool, int, float, complex)
_ATOMS = (type(None), bool, int, float, complex, str, bytes)
_COPIES = (
    (bool, lambda v: bool(int.__int__(v))),
    (int, int.__int__),
    (float, float.__float__),
    (complex, lambda v: complex(complex.__complex__(v))),
    (str, str.__str__),
    (bytes, lambda v: bytes.__getitem__(v, slice(None))),
    (tuple, lambda v: tuple.__getitem__(v, slice(None))),
    (list, list.copy),
    (dict, dict.copy),
    (frozenset, frozenset.copy),
    (set, set.copy),
)


def to_builtin(value, depth=0):
    """`value` as builtin plain data, tuples kept as tuples; TypeError for anything else. Subclasses
    are read through their base type's C methods, so no overridden method of theirs runs."""
    if depth > MAX_DEPTH:
        raise TypeError("nested too deeply")
    kind = type(value)
    if kind in _ATOMS:
        return value
    if kind is list:
        return [to_builtin(item, depth + 1) for item in value]
    if kind is tuple:
        return tuple(to_builtin(item, depth + 1) for item in value)
    if kind is dict:
        return {to_builtin(k, depth + 1): to_builtin(v, depth + 1) for k, v in value.items()}
    if kind is set:
        return {to_builtin(item, depth + 1) for item in value}
    if kind is frozenset:
        return frozenset(to_builtin(item, depth + 1) for item in value)
    for base, copy in _COPIES:
        if isinstance(value, base):
            return to_builtin(copy(value), depth + 1)
    raise TypeError(f"not plain data: {kind.__name__}")


def same(a, b):
    """Python's `a == b` on builtin data, except that NaN equals NaN."""
    if type(a) is float and type(b) is float and a != a and b != b:
        return True
    if (isinstance(a, list) and isinstance(b, list)) or (isinstance(a, tuple) and isinstance(b, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[k], b[k]) for k in a)
    return bool(a == b)


def is_floats(value):
    """EvalPlus's test for an expected answer that gets the default float tolerance."""
    if isinstance(value, float):
        return True
    if isinstance(value, (list, tuple)) and value:
        return all(isinstance(item, float) for item in value)
    return False


def _close(actual, expected, atol):
    # np.isclose on one pair of numbers: NaN never, infinities only when equal
    if not isinstance(actual, _NUMBERS) or not isinstance(expected, _NUMBERS):
        return False
    if actual != actual or expected != expected:
        return False
    if math.isinf(abs(actual)) or math.isinf(abs(expected)):
        return actual == expected
    return abs(actual - expected) <= atol + REL_TOL * abs(expected)


def allclose(actual, expected, atol):
    """np.allclose(actual, expected, rtol=1e-7, atol=atol) on numbers and nested lists/tuples of
    numbers of the same shape (anything numpy cannot compare fails)."""
    if isinstance(expected, (list, tuple)):
        return (
            isinstance(actual, (list, tuple))
            and len(actual) == len(expected)
            and all(allclose(a, e, atol) for a, e in zip(actual, expected, strict=True))
        )
    return _close(actual, expected, atol)


def float_fallback(expected, actual, atol):
    """EvalPlus's second chance for an answer that did not match: numbers within the tolerance."""
    if atol == 0 and is_floats(expected):
        atol = DEFAULT_FLOAT_ATOL
    if atol == 0 or type(actual) is not type(expected):
        return False
    if isinstance(expected, (list, tuple)) and len(actual) != len(expected):
        return False
    try:
        return allclose(actual, expected, atol)
    except (OverflowError, TypeError, ValueError):
        return False


def poly(xs, x):
    """The HumanEval/32 polynomial xs[0] + xs[1] * x + ... + xs[n] * x**n, as EvalPlus evaluates it."""
    return sum(coeff * math.pow(x, i) for i, coeff in enumerate(xs))


def surface_area_other(base_edge, height):
    """Mbpp/581 read with `height` as the pyramid's height (the reference takes it as the slant)."""
    slant = math.sqrt((base_edge / 2) ** 2 + height**2)
    return round(base_edge**2 + 2 * base_edge * slant)


def digit_distance_padded(num1, num2):
    """Mbpp/558 with the shorter number padded with leading zeros."""
    first, second = str(num1), str(num2)
    width = max(len(first), len(second))
    return sum(abs(int(a) - int(b)) for a, b in zip(first.zfill(width), second.zfill(width), strict=True))


def _with_fallback(expected, actual, atol, match):
    # the program's value as builtin data, the oracle's match, then EvalPlus's float fallback; any
    # exception on odd data fails the case, as in EvalPlus
    try:
        out = to_builtin(actual)
        return bool(match(out)) or float_fallback(expected, out, atol)
    except Exception:
        return False


def evalplus_equal(args, expected, actual, atol):
    return _with_fallback(expected, actual, atol, lambda out: same(out, expected))


def as_sets(args, expected, actual, atol):
    return _with_fallback(expected, actual, atol, lambda out: set(out) == set(expected))


def equal_or_zero(args, expected, actual, atol):
    return _with_fallback(expected, actual, atol, lambda out: same(out, expected) or out == 0)


def mbpp_surface_area(args, expected, actual, atol):
    return _with_fallback(
        expected,
        actual,
        atol,
        lambda out: same(out, expected) or abs(out - surface_area_other(*args)) <= atol,
    )


def mbpp_digit_distance(args, expected, actual, atol):
    return _with_fallback(
        expected, actual, atol, lambda out: same(out, expected) or out == digit_distance_padded(*args)
    )


def is_not_none(args, expected, actual, atol):
    if type(actual) is bool:
        return actual == expected
    return (actual is not None) == expected


def returns(args, expected, actual, atol):
    return True


def poly_root(args, expected, actual, atol):
    try:
        return abs(poly(args[0], to_builtin(actual))) <= atol
    except Exception:
        return False


# Comparison.oracle name -> its function
ORACLES = {
    "evalplus_equal": evalplus_equal,
    "set": as_sets,
    "is_not_none": is_not_none,
    "returns": returns,
    "equal_or_zero": equal_or_zero,
    "mbpp_surface_area": mbpp_surface_area,
    "mbpp_digit_distance": mbpp_digit_distance,
    "poly_root": poly_root,
}


def judge(oracle, args, expected, actual, atol):
    """True when `actual`, returned for the arguments `args`, passes against the reference's
    `expected` under the named oracle with the task's `atol` (see the module docstring)."""
    return ORACLES[oracle](args, expected, actual, atol)
