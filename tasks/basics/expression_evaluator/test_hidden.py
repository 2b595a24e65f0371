import pytest

from solution import evaluate


def test_precedence_and_associativity():
    assert evaluate("1 + 2 * 3") == 7
    assert evaluate("10 - 4 - 3") == 3
    assert evaluate("64 / 4 / 2") == 8.0
    assert evaluate("2 * 3 + 4 * 5") == 26


def test_result_types():
    result = evaluate("6 / 3")
    assert result == 2.0 and isinstance(result, float)
    result = evaluate("2 * 3 - 1")
    assert result == 5 and isinstance(result, int)
    result = evaluate("1.5 + 1")
    assert result == 2.5 and isinstance(result, float)


def test_unary_operators():
    assert evaluate("-3") == -3
    assert evaluate("--2") == 2
    assert evaluate("2 * -3") == -6
    assert evaluate("-(1 + 2) * +4") == -12
    assert evaluate("1 - -1") == 2


def test_number_forms():
    assert evaluate("3.") == 3.0
    assert evaluate(".5 + .25") == pytest.approx(0.75)
    assert evaluate("007") == 7


def test_nested_parentheses_and_whitespace():
    assert evaluate(" ( ( 1 + 2 ) * ( 3 + 4 ) ) \n/\t7 ") == 3.0
    assert evaluate("(" * 50 + "1" + ")" * 50) == 1


def test_large_integers_stay_exact():
    assert evaluate("123456789012345678901234567890 * 10 + 1") == 1234567890123456789012345678901


def test_division_by_zero():
    with pytest.raises(ZeroDivisionError):
        evaluate("1 / (2 - 2)")


def test_malformed_inputs():
    for bad in ("", "   ", "1 +", "* 2", "(1 + 2", "1 + 2)", "()", "1 2", "1.2.3", "2(3)", "a + 1", "1 & 2"):
        with pytest.raises(ValueError):
            evaluate(bad)


def test_unsupported_operators_and_no_eval():
    for bad in ("2 ** 3", "7 // 2", "7 % 2", "__import__('os')", "1e3", "٣ + 1"):
        with pytest.raises(ValueError):
            evaluate(bad)


def test_long_expression():
    expression = " + ".join(str(i) for i in range(1, 5001))
    assert evaluate(expression) == 5000 * 5001 // 2
