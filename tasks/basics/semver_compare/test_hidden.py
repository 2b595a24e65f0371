import pytest

from solution import compare_versions

ORDERED = [
    "1.0.0-alpha",
    "1.0.0-alpha.1",
    "1.0.0-alpha.beta",
    "1.0.0-beta",
    "1.0.0-beta.2",
    "1.0.0-beta.11",
    "1.0.0-rc.1",
    "1.0.0",
    "1.0.1",
    "1.1.0",
    "2.0.0",
]


@pytest.mark.parametrize("index", range(len(ORDERED) - 1))
def test_spec_ordering(index):
    lower, higher = ORDERED[index], ORDERED[index + 1]
    assert compare_versions(lower, higher) == -1
    assert compare_versions(higher, lower) == 1


@pytest.mark.parametrize(
    ("a", "b", "expected"),
    [
        ("1.10.0", "1.9.3", 1),
        ("0.0.1", "0.0.1", 0),
        ("1.0.0+build.5", "1.0.0+other", 0),
        ("1.0.0-rc.1+b1", "1.0.0-rc.1", 0),
        ("1.0.0-1", "1.0.0-a", -1),
        ("1.0.0-a-b", "1.0.0-a", 1),
        ("1.0.0-Z", "1.0.0-a", -1),
        ("1.0.0-2", "1.0.0-10", -1),
        ("1.0.0-0a", "1.0.0-1", 1),
        ("10.20.30", "10.20.4", 1),
        ("123456789012345678901.0.0", "123456789012345678900.9.9", 1),
    ],
)
def test_pairs(a, b, expected):
    assert compare_versions(a, b) == expected


@pytest.mark.parametrize(
    "bad",
    [
        "",
        "1",
        "1.0",
        "1.0.0.0",
        "01.0.0",
        "1.00.0",
        "v1.0.0",
        " 1.0.0",
        "1.0.0-",
        "1.0.0-01",
        "1.0.0-alpha..1",
        "1.0.0+",
        "1.0.0+a..b",
        "1.0.0-al_pha",
        "1.0.0-é",
        "1.a.0",
        "-1.0.0",
    ],
)
def test_invalid(bad):
    with pytest.raises(ValueError):
        compare_versions(bad, "1.0.0")
    with pytest.raises(ValueError):
        compare_versions("1.0.0", bad)


def test_leading_zero_allowed_in_build():
    assert compare_versions("1.0.0+001", "1.0.0") == 0


def test_sort_with_cmp_to_key():
    import functools
    import random

    shuffled = ORDERED[:]
    random.Random(7).shuffle(shuffled)
    assert sorted(shuffled, key=functools.cmp_to_key(compare_versions)) == ORDERED


def test_returns_exact_ints():
    assert compare_versions("2.0.0", "1.99.99") == 1
    assert compare_versions("1.99.99", "2.0.0") == -1
