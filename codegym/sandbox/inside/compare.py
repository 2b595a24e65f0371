"""How the harness compares a case's answer with the expected one (trusted; runs in the harness).

stdio answers are text (the program's stdout, decoded); call answers are values that crossed the wire
as plain data, so every comparison here runs on builtin objects only — no program code decides it.
A value that is not plain data (a remote handle) is never equal to expected data.

Pure standard library: it runs inside the sandbox and in codegym's own tests.
"""

import math
import re
from decimal import Decimal, InvalidOperation
from fractions import Fraction

# Fraction and Decimal are the codec's own exact numbers (decoded into these exact classes only)
PLAIN_ATOMS = (type(None), bool, int, float, complex, str, bytes, Fraction, Decimal)
_EXACT_NUMBERS = (Fraction, Decimal)
_REAL_NUMBERS = (int, float, Fraction, Decimal)


# -- stdio -----------------------------------------------------------------------------------------
def normalised_lines(text):
    """Line endings unified, trailing whitespace per line and trailing blank lines dropped (how
    APPS, CodeContests and LiveCodeBench judge stdout)."""
    lines = [line.rstrip() for line in text.replace("\r\n", "\n").replace("\r", "\n").split("\n")]
    while lines and not lines[-1]:
        lines.pop()
    return lines


def _number(token):
    try:
        value = float(token)
    except ValueError:
        return None
    return value if math.isfinite(value) else None


# unambiguous (a fraction needs its point), so a long run of digits never backtracks quadratically
_DECIMAL = re.compile(r"[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d{1,4})?")
_INTEGER = re.compile(r"[+-]?\d+")


_EXACT_LIMIT = Fraction(10) ** 400


def _exact(token):
    """A decimal token (at most 4,000 characters: tokens_match checks) as an exact Fraction, or None
    if it is not one or is out of range."""
    if not _DECIMAL.fullmatch(token):
        return None
    value = Fraction(Decimal(token))
    return value if abs(value) < _EXACT_LIMIT else None


def tokens_match(expected_token, actual_token, rel, tol):
    if expected_token == actual_token:
        return True
    if not (rel or tol):
        return False
    if len(expected_token) > 4000 or len(actual_token) > 4000:
        return False  # past int()'s digit limit: equal only as text (checked above)
    if _INTEGER.fullmatch(expected_token) or _INTEGER.fullmatch(actual_token):
        # an integer is judged exactly: a float rounds integers past 2**53, so 999999999000000037
        # would "match" 999999999000000000 (the tolerance is for the real-number part only)
        expected, actual = _exact(expected_token), _exact(actual_token)
        if expected is None or actual is None:
            return False
        return abs(actual - expected) <= max(Fraction(tol), Fraction(rel) * abs(expected))
    expected, actual = _number(expected_token), _number(actual_token)
    if expected is None or actual is None:
        return False
    return abs(actual - expected) <= max(tol, rel * abs(expected))


def _token_lists_match(expected, actual, rel, tol):
    return len(expected) == len(actual) and all(
        tokens_match(e, a, rel, tol) for e, a in zip(expected, actual, strict=True)
    )


def stdout_matches(expected, actual, match="lines", rel=0.0, tol=0.0):
    """True when `actual` stdout is judged equal to `expected` under the rule."""
    if match == "exact":
        return actual == expected
    if match == "tokens":
        return _token_lists_match(expected.split(), actual.split(), rel, tol)
    expected_lines, actual_lines = normalised_lines(expected), normalised_lines(actual)
    if expected_lines == actual_lines:
        return True
    if not (rel or tol) or len(expected_lines) != len(actual_lines):
        return False
    return all(
        e == a or _token_lists_match(e.split(), a.split(), rel, tol)
        for e, a in zip(expected_lines, actual_lines, strict=True)
    )


# -- call ------------------------------------------------------------------------------------------
def plain(value, depth=0):
    """The value as builtin plain data (tuples as lists: JSON datasets cannot tell them apart), or
    raises TypeError for anything else. Subclasses of plain types are read at C level, so an
    overridden `__iter__`/`__eq__` of a program-defined class never runs."""
    if depth > 200:
        raise TypeError("nested too deeply")
    kind = type(value)
    if kind in PLAIN_ATOMS:
        return value
    if kind is list or kind is tuple:
        return [plain(item, depth + 1) for item in value]
    if kind is dict:
        return {_hashable(plain(k, depth + 1)): plain(v, depth + 1) for k, v in value.items()}
    if kind is set or kind is frozenset:
        return {_hashable(plain(item, depth + 1)) for item in value}
    for base, copy in _BASE_COPIES:
        if isinstance(value, base):
            return plain(copy(value), depth + 1)
    raise TypeError(f"not plain data: {kind.__name__}")


_BASE_COPIES = (
    (int, int.__int__),
    (float, float.__float__),
    (str, str.__str__),
    (bytes, lambda v: bytes.__getitem__(v, slice(None))),
    (list, list.copy),
    (tuple, lambda v: tuple.__getitem__(v, slice(None))),
    (dict, dict.copy),
    (set, set.copy),
    (frozenset, frozenset.copy),
)


def _hashable(value):
    if type(value) is list:
        return tuple(_hashable(item) for item in value)
    if type(value) is dict:
        return tuple(sorted(((k, _hashable(v)) for k, v in value.items()), key=repr))
    if type(value) is set:
        return frozenset(value)
    return value


def values_equal(expected, actual, rel=0.0, tol=0.0):
    """Plain-data equality with float tolerance (NaN equals NaN: a reference that returns NaN
    is matched by a program that returns NaN)."""
    if type(expected) in _EXACT_NUMBERS or type(actual) in _EXACT_NUMBERS:
        return _exact_numbers_equal(expected, actual, rel, tol)
    if type(expected) is float or type(actual) is float:
        if (
            type(expected) in (int, float)
            and type(actual) in (int, float)
            and bool
            not in (
                type(expected),
                type(actual),
            )
        ):
            nan = [type(v) is float and math.isnan(v) for v in (expected, actual)]
            if any(nan):
                return all(nan)
            if expected == actual:
                return True
            if type(expected) is int or type(actual) is int:
                # exactly: float arithmetic would round the int first (2**60 + 1 "equals" 2.0**60)
                if any(type(v) is float and math.isinf(v) for v in (expected, actual)):
                    return False
                difference = abs(Fraction(actual) - Fraction(expected))
                return difference <= max(Fraction(tol), Fraction(rel) * abs(Fraction(expected)))
            return abs(actual - expected) <= max(tol, rel * abs(expected))
        return False
    if type(expected) is list and type(actual) is list:
        return len(expected) == len(actual) and all(
            values_equal(e, a, rel, tol) for e, a in zip(expected, actual, strict=True)
        )
    if type(expected) is dict and type(actual) is dict:
        return expected.keys() == actual.keys() and all(
            values_equal(expected[k], actual[k], rel, tol) for k in expected
        )
    return (type(expected) is type(actual) and expected == actual) or (
        # ints and bools compare as Python does (1 == True); datasets written by Python rely on it
        type(expected) in (int, bool) and type(actual) in (int, bool) and expected == actual
    )


def _exact_number(value):
    """A finite real as a Fraction; None for a NaN or an infinity (Decimal's too)."""
    if type(value) is float and not math.isfinite(value):
        return None
    if type(value) is Decimal and not value.is_finite():
        return None
    try:
        return Fraction(value)
    except (ValueError, OverflowError):
        return None


def _exact_numbers_equal(expected, actual, rel, tol):
    """A Fraction or a Decimal against a number, as Python's == would decide it (exactly: a Fraction
    equals an int or a float only when the values are the same), and with the float tolerance
    when a float is one side. bool is not a number here, as in the float branch."""
    kinds = (type(expected), type(actual))
    if not all(kind in _REAL_NUMBERS for kind in kinds):
        return False
    if kinds[0] is kinds[1]:
        try:
            return bool(expected == actual) or (
                type(expected) is Decimal and expected.is_nan() and actual.is_nan()
            )
        except InvalidOperation:  # a signalling NaN
            return False
    exact = [_exact_number(value) for value in (expected, actual)]
    if exact[0] is None or exact[1] is None:
        nan = [_is_nan(value) for value in (expected, actual)]
        if any(nan):
            return all(nan)
        return _infinite_sign(expected) == _infinite_sign(actual)  # both infinite, or never equal
    if exact[0] == exact[1]:
        return True
    if float not in kinds or not (rel or tol):
        return False
    return abs(exact[1] - exact[0]) <= max(Fraction(tol), Fraction(rel) * abs(exact[0]))


def _is_nan(value):
    return (type(value) is float and math.isnan(value)) or (type(value) is Decimal and value.is_nan())


def _infinite_sign(value):
    if (type(value) is float and math.isinf(value)) or (type(value) is Decimal and value.is_infinite()):
        return 1 if value > 0 else -1
    return None


def return_matches(expected, actual, oracle="equal", rel=0.0, tol=0.0):
    """True when the returned `actual` is judged equal to `expected` under the oracle."""
    if oracle == "not_none":
        return actual is not None
    try:
        got = plain(actual)
    except TypeError:
        return False
    want = plain(expected)
    if oracle == "set":
        try:
            return {_hashable(v) for v in _iterable(got)} == {_hashable(v) for v in _iterable(want)}
        except TypeError:
            return False
    if values_equal(want, got, rel, tol):
        return True
    if oracle == "unwrap_single":
        # APPS/TACO store Codewars outputs wrapped in a one-element list, LeetCode's not
        return type(want) is list and len(want) == 1 and values_equal(want[0], got, rel, tol)
    return False


def _iterable(value):
    if type(value) in (list, set, frozenset, dict, str, bytes):
        return value
    raise TypeError("not a collection")


def safe_repr(value, limit=200):
    """A repr of plain data (never the program's own `__repr__`)."""
    try:
        text = repr(plain(value))
    except (TypeError, RecursionError):
        text = f"<{type(value).__name__} object of the program>"
    return text if len(text) <= limit else text[:limit] + "..."
