import pytest

from solution import is_balanced


@pytest.mark.parametrize(
    "text",
    [
        "",
        "()",
        "()[]{}",
        "{[()()]}",
        "f(a[1], {'k': g(2)})",
        "no brackets at all",
        "print(')')",
        'x = "[[[" + ")))"',
        "s = 'it\\'s (fine'",
        's = "a \\\\" + (1)',
        "'\"' + (\"'\")",
        "\\()",
        "[日本(語)]",
    ],
)
def test_balanced(text):
    assert is_balanced(text) is True


@pytest.mark.parametrize(
    "text",
    [
        "(",
        ")",
        "([)]",
        "(()",
        "())",
        "}{",
        "'unterminated",
        '"also (unterminated)',
        "s = 'escaped quote at end\\'",
        's = "a \\\\" + (1',
        "x = ')' + (",
    ],
)
def test_unbalanced(text):
    assert is_balanced(text) is False


def test_deep_nesting():
    assert is_balanced("(" * 50000 + ")" * 50000) is True
    assert is_balanced("(" * 50000 + ")" * 49999) is False


def test_long_mixed_text():
    chunk = "call(arr[i], {'key': \"v)\"}) "
    assert is_balanced(chunk * 5000) is True
    assert is_balanced(chunk * 5000 + "]") is False


def test_escape_only_inside_literals():
    assert is_balanced("'\\\\' + ()") is True
    assert is_balanced("'\\' + ()") is False


def test_other_quote_inside_literal():
    assert is_balanced('"it\'s" + [1]') is True
    assert is_balanced("'say \"hi' + (2)") is True
