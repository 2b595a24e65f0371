"""The harness's comparison rules for input/output cases (codegym/sandbox/inside/compare.py)."""

from __future__ import annotations

import math

import pytest

from codegym.sandbox.inside import compare


@pytest.mark.parametrize(
    ("expected", "actual", "match"),
    [
        ("3\n", "3", "lines"),
        ("1 2\n3 4\n", "1 2   \r\n3 4\r\n\r\n\n", "lines"),  # CRLF, trailing spaces, blank lines at the end
        ("a\nb\n", "a b", "tokens"),
        ("x\n", "x\n", "exact"),
    ],
)
def test_stdout_that_matches(expected: str, actual: str, match: str) -> None:
    assert compare.stdout_matches(expected, actual, match)


@pytest.mark.parametrize(
    ("expected", "actual", "match"),
    [
        ("3\n", "4\n", "lines"),
        ("1 2\n", " 1 2\n", "lines"),  # leading whitespace is part of the answer
        ("a\nb\n", "a b\n", "lines"),  # line structure matters in `lines`
        ("a\nb\n", "a\n\nb\n", "lines"),  # a blank line in the middle is not trailing
        ("a b\n", "a b c\n", "tokens"),
        ("x\n", "x", "exact"),
        ("", "0", "lines"),
    ],
)
def test_stdout_that_does_not_match(expected: str, actual: str, match: str) -> None:
    assert not compare.stdout_matches(expected, actual, match)


def test_floats_within_the_tolerance_and_only_then() -> None:
    assert not compare.stdout_matches("0.3333333\n", "0.33333334\n")  # no tolerance: text must agree
    assert compare.stdout_matches("0.3333333\n", "0.33333334\n", rel=1e-6, tol=1e-6)
    assert compare.stdout_matches("1000000.0 abc\n", "1000000.5 abc\n", rel=1e-6)
    assert not compare.stdout_matches("1000000.0 abc\n", "1000002 abc\n", rel=1e-6)
    assert not compare.stdout_matches("1.0 abc\n", "1.0 abd\n", rel=1e-6)
    assert compare.stdout_matches("2.5 7\n", "2.5000001\n7", "tokens", tol=1e-6)
    assert compare.stdout_matches("nan\n", "nan\n", "tokens", tol=1e-6)  # equal text always passes


def test_integers_are_exact_whatever_the_tolerance() -> None:
    # as floats, integers past 2**53 round together: a wrong answer would pass
    assert not compare.stdout_matches("999999999000000000\n", "999999999000000037\n", tol=1e-6)
    assert not compare.stdout_matches("999999999000000000\n", "9.99999999000000037e17\n", tol=1e-6)
    assert compare.stdout_matches("10 2.5\n", "1e1 2.5000001\n", tol=1e-6)  # the value, not the text
    assert compare.stdout_matches("3\n", "3.0000000001\n", tol=1e-6)
    assert not compare.stdout_matches("1\n", "1e99999\n", tol=1e-6)
    assert not compare.values_equal(2**60 + 1, float(2**60))
    assert not compare.values_equal(2**60 + 1, float(2**60), rel=1e-9 / 2**60)
    assert compare.values_equal(2**60, float(2**60)) and compare.values_equal(3, 3.0000001, tol=1e-6)
    assert not compare.values_equal(10**400, 1.0, tol=1e-6)  # no OverflowError
    assert not compare.values_equal(3, float("inf"), tol=1e-6)


def test_call_values_are_plain_data_with_tuples_as_lists() -> None:
    assert compare.return_matches([1, [2, 3]], (1, (2, 3)))
    assert compare.return_matches({"a": [1.0]}, {"a": (1,)})
    assert not compare.return_matches([1, 2], [2, 1])
    assert not compare.return_matches("1", 1)
    assert compare.return_matches(True, 1)  # Python's own equality: datasets written in Python rely on it
    assert compare.return_matches(math.nan, math.nan)
    assert not compare.return_matches(0.1 + 0.2, 0.3)
    assert compare.return_matches(0.3, 0.1 + 0.2, tol=1e-9)


def test_oracles() -> None:
    assert compare.return_matches([5], 5, "unwrap_single")  # Codewars rows wrap the answer
    assert compare.return_matches([5], [5], "unwrap_single")
    assert not compare.return_matches([5, 6], 5, "unwrap_single")
    assert not compare.return_matches([5], 5)
    assert compare.return_matches([3, 1, 2], [1, 2, 3], "set")
    assert not compare.return_matches([3, 1], [1, 2], "set")
    assert compare.return_matches(None, "anything", "not_none")
    assert not compare.return_matches(None, None, "not_none")


def test_a_program_defined_subclass_is_read_at_c_level() -> None:
    class Lying(list):
        def __eq__(self, other: object) -> bool:
            return True

        def __iter__(self):  # type: ignore[override]
            return iter([1, 2, 3])

    assert not compare.return_matches([1, 2, 3], Lying([9]))
    assert compare.return_matches([9], Lying([9]))

    class Opaque:
        def __eq__(self, other: object) -> bool:
            return True

    assert not compare.return_matches([1], Opaque())
    assert compare.safe_repr(Opaque()).startswith("<Opaque object")


def test_exact_fractions_and_decimals_compare_as_numbers():
    # V5: the codec's Fraction and Decimal are numbers, judged as Python's == would judge them
    from decimal import Decimal
    from fractions import Fraction

    for expected, actual in (
        (2.0, Fraction(2)),
        (1.5, Fraction(3, 2)),
        (-0.5, Decimal(-1) / 2),
        (3, Fraction(3)),
        (3, Decimal("3.0")),
        ([1.5, 2], [Fraction(3, 2), Decimal(2)]),
        (Fraction(1, 2), Decimal("0.5")),
        (float("inf"), Decimal("Infinity")),
    ):
        assert compare.return_matches(expected, actual), (expected, actual)
    for expected, actual in (
        (0.1, Fraction(1, 10)),
        (1, Fraction(1, 2)),
        ("1", Fraction(1)),
        (True, Fraction(1)),
    ):
        assert not compare.return_matches(expected, actual), (expected, actual)
    # a float answer's tolerance applies to them too, in exact arithmetic
    assert compare.return_matches(0.1, Fraction(1, 10), rel=1e-9)
    assert not compare.return_matches(1.0, Fraction(11, 10), rel=1e-9)
    assert compare.safe_repr(Fraction(1, 2)) == "Fraction(1, 2)"
