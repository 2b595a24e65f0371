from solution import caesar


def test_basic_shift():
    assert caesar("Hello, World!", 3) == "Khoor, Zruog!"


def test_wraparound():
    assert caesar("xyz XYZ", 3) == "abc ABC"


def test_zero_and_full_rotation():
    assert caesar("Same Text", 0) == "Same Text"
    assert caesar("Same Text", 26) == "Same Text"
    assert caesar("Same Text", -52) == "Same Text"


def test_large_and_negative_shift():
    assert caesar("abc", 27) == "bcd"
    assert caesar("abc", -27) == "zab"
    assert caesar("Zebra", 10**9 + 1) == caesar("Zebra", (10**9 + 1) % 26)


def test_non_ascii_untouched():
    assert caesar("café ß ñ 123!", 1) == "dbgé ß ñ 123!"


def test_empty():
    assert caesar("", 5) == ""


def test_round_trip():
    text = "The Quick Brown Fox Jumps Over The Lazy Dog 0123456789 \t\n"
    for shift in range(-30, 31):
        assert caesar(caesar(text, shift), -shift) == text


def test_rot13():
    assert caesar("Why did the chicken cross the road?", 13) == "Jul qvq gur puvpxra pebff gur ebnq?"
