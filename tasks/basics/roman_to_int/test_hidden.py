import pytest

from solution import roman_to_int


def test_basic_values():
    assert roman_to_int("I") == 1
    assert roman_to_int("IV") == 4
    assert roman_to_int("IX") == 9
    assert roman_to_int("LVIII") == 58
    assert roman_to_int("MCMXCIV") == 1994


def test_bounds():
    assert roman_to_int("MMMCMXCIX") == 3999
    assert roman_to_int("MMMDCCCLXXXVIII") == 3888


def test_empty_rejected():
    with pytest.raises(ValueError):
        roman_to_int("")


def test_lowercase_and_junk_rejected():
    for bad in ("iv", "XIV ", " X", "X-I", "ⅩⅡ", "XIV\n"):
        with pytest.raises(ValueError):
            roman_to_int(bad)


def test_non_canonical_rejected():
    for bad in ("IIII", "VV", "IC", "IL", "XM", "VX", "MMMM", "XXXX", "CCCC", "DD", "LL", "IIV", "IXI"):
        with pytest.raises(ValueError):
            roman_to_int(bad)


def test_round_trip_against_table():
    ones = ["", "I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IX"]
    tens = ["", "X", "XX", "XXX", "XL", "L", "LX", "LXX", "LXXX", "XC"]
    hundreds = ["", "C", "CC", "CCC", "CD", "D", "DC", "DCC", "DCCC", "CM"]
    for n in range(1, 4000):
        numeral = "M" * (n // 1000) + hundreds[n // 100 % 10] + tens[n // 10 % 10] + ones[n % 10]
        assert roman_to_int(numeral) == n
