import pytest

from solution import wrap_text


def test_simple_wrap():
    assert wrap_text("The quick brown fox jumps over the lazy dog", 10) == [
        "The quick",
        "brown fox",
        "jumps over",
        "the lazy",
        "dog",
    ]


def test_exact_fit():
    assert wrap_text("aaa bbb", 7) == ["aaa bbb"]
    assert wrap_text("aaa bbb", 6) == ["aaa", "bbb"]


def test_empty_and_whitespace():
    assert wrap_text("", 3) == []
    assert wrap_text(" \t\n ", 3) == []


def test_collapses_whitespace_and_newlines():
    assert wrap_text("  one\n\ntwo\tthree  ", 9) == ["one two", "three"]


def test_long_word_after_text():
    assert wrap_text("hi abcdefghij k", 4) == ["hi", "abcd", "efgh", "ij k"]


def test_long_word_exact_multiple():
    assert wrap_text("abcdefgh x", 4) == ["abcd", "efgh", "x"]


def test_width_one():
    assert wrap_text("ab c", 1) == ["a", "b", "c"]


def test_unicode_counts_code_points():
    assert wrap_text("héllo wörld ñ", 7) == ["héllo", "wörld ñ"]


def test_invalid_width():
    with pytest.raises(ValueError):
        wrap_text("abc", 0)
    with pytest.raises(ValueError):
        wrap_text("abc", -3)


def test_large_input():
    text = " ".join(["word"] * 20000)
    lines = wrap_text(text, 80)
    assert all(len(line) <= 80 for line in lines)
    assert lines[0] == " ".join(["word"] * 16)
    assert " ".join(lines) == text
