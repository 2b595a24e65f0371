import pytest

from solution import int_to_roman


@pytest.mark.parametrize(
    ("number", "expected"),
    [
        (1, "I"),
        (4, "IV"),
        (9, "IX"),
        (14, "XIV"),
        (40, "XL"),
        (90, "XC"),
        (99, "XCIX"),
        (400, "CD"),
        (444, "CDXLIV"),
        (900, "CM"),
        (1994, "MCMXCIV"),
        (2024, "MMXXIV"),
        (3888, "MMMDCCCLXXXVIII"),
        (3999, "MMMCMXCIX"),
    ],
)
def test_known_values(number, expected):
    assert int_to_roman(number) == expected


@pytest.mark.parametrize("number", [0, -1, 4000, 10**9])
def test_out_of_range(number):
    with pytest.raises(ValueError):
        int_to_roman(number)


@pytest.mark.parametrize("value", [1.0, "12", None, True])
def test_wrong_type(value):
    with pytest.raises(TypeError):
        int_to_roman(value)


def test_all_values_unique_and_valid_symbols():
    seen = set()
    for n in range(1, 4000):
        numeral = int_to_roman(n)
        assert set(numeral) <= set("IVXLCDM")
        seen.add(numeral)
    assert len(seen) == 3999


def test_subtractive_pairs_only_where_required():
    assert int_to_roman(49) == "XLIX"
    assert int_to_roman(499) == "CDXCIX"
    assert int_to_roman(999) == "CMXCIX"


def test_returns_str():
    result = int_to_roman(8)
    assert isinstance(result, str)
    assert result == "VIII"
