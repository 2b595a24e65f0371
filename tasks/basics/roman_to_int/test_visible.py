from solution import roman_to_int


def test_1994():
    assert roman_to_int("MCMXCIV") == 1994


def test_42():
    assert roman_to_int("XLII") == 42
