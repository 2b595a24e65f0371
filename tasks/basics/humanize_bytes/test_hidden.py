import pytest

from solution import humanize_bytes


def test_plain_bytes():
    assert humanize_bytes(0) == "0 B"
    assert humanize_bytes(1) == "1 B"
    assert humanize_bytes(999) == "999 B"
    assert humanize_bytes(1023, binary=True) == "1023 B"


def test_decimal_units():
    assert humanize_bytes(1000) == "1.0 kB"
    assert humanize_bytes(1500) == "1.5 kB"
    assert humanize_bytes(2_340_000) == "2.3 MB"
    assert humanize_bytes(7 * 10**9) == "7.0 GB"
    assert humanize_bytes(10**15) == "1.0 PB"


def test_binary_units():
    assert humanize_bytes(1024, binary=True) == "1.0 KiB"
    assert humanize_bytes(1536, binary=True) == "1.5 KiB"
    assert humanize_bytes(5 * 1024**3, binary=True) == "5.0 GiB"
    assert humanize_bytes(1000, binary=True) == "1000 B"


def test_rounding_bumps_unit():
    assert humanize_bytes(999_999) == "1.0 MB"
    assert humanize_bytes(999_949) == "999.9 kB"
    assert humanize_bytes(1024**2 - 1, binary=True) == "1.0 MiB"


def test_largest_unit_caps():
    assert humanize_bytes(10**18) == "1.0 EB"
    assert humanize_bytes(5 * 10**21) == "5000.0 EB"
    assert humanize_bytes(1024**7, binary=True) == "1024.0 EiB"


def test_negative():
    assert humanize_bytes(-1500) == "-1.5 kB"
    assert humanize_bytes(-5) == "-5 B"


def test_type_errors():
    for bad in (1.5, "100", None, True):
        with pytest.raises(TypeError):
            humanize_bytes(bad)
