import pytest

from solution import parse_duration


def test_single_units():
    assert parse_duration("45s") == 45
    assert parse_duration("2m") == 120
    assert parse_duration("3h") == 10800
    assert parse_duration("1d") == 86400


def test_all_units():
    assert parse_duration("1d2h3m4s") == 86400 + 7200 + 180 + 4


def test_zero_and_leading_zeros():
    assert parse_duration("0s") == 0
    assert parse_duration("0d0h0m0s") == 0
    assert parse_duration("01m05s") == 65


def test_unbounded_numbers():
    assert parse_duration("90m") == 5400
    assert parse_duration("100000d") == 100000 * 86400


def test_skipped_units():
    assert parse_duration("1d30s") == 86430
    assert parse_duration("2h5s") == 7205


def test_invalid_inputs():
    bad_inputs = [
        "",
        " ",
        "1h 30m",
        " 1h",
        "1h\n",
        "10",
        "h",
        "1H",
        "1x",
        "30m1h",
        "1h1h",
        "-5s",
        "+5s",
        "1.5h",
        "1hm",
        "1w",
        "٣s",
        "1h30",
    ]
    for bad in bad_inputs:
        with pytest.raises(ValueError):
            parse_duration(bad)


def test_returns_int():
    result = parse_duration("1m")
    assert isinstance(result, int) and result == 60
