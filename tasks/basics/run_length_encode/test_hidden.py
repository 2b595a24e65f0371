import pytest

from solution import rle_encode


def test_mixed_runs():
    assert rle_encode("aaabccdddd") == "3ab2c4d"


def test_empty_string():
    assert rle_encode("") == ""


def test_single_character():
    assert rle_encode("z") == "z"


def test_case_sensitive():
    assert rle_encode("aAAa") == "a2Aa"


def test_multi_digit_count():
    assert rle_encode("x" * 12 + "y") == "12xy"
    assert rle_encode("q" * 1000) == "1000q"


def test_unicode_and_whitespace():
    assert rle_encode("héé  !") == "h2é2 !"
    assert rle_encode("日日日本") == "3日本"
    assert rle_encode("\n\n\t") == "2\n\t"


def test_same_char_separated_runs():
    assert rle_encode("aabaa") == "2ab2a"


def test_digits_rejected():
    with pytest.raises(ValueError):
        rle_encode("a1")
    with pytest.raises(ValueError):
        rle_encode("x²")


def test_large_input():
    text = ("ab" * 5000) + ("c" * 50000)
    assert rle_encode(text) == "ab" * 5000 + "50000c"
