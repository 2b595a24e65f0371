from solution import evaluate


def test_precedence():
    assert evaluate("1 + 2 * 3") == 7


def test_parentheses_and_division():
    assert evaluate("(1 + 2) * -3 / 2") == -4.5
