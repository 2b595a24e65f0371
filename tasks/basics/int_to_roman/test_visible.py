from solution import int_to_roman


def test_1994():
    assert int_to_roman(1994) == "MCMXCIV"


def test_small():
    assert int_to_roman(3) == "III"
    assert int_to_roman(4) == "IV"
