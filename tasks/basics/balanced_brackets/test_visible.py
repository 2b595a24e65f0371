from solution import is_balanced


def test_nested():
    assert is_balanced("f(a[1], {'k': g(2)})") is True


def test_bracket_in_string():
    assert is_balanced("print(')')") is True


def test_crossed():
    assert is_balanced("([)]") is False
