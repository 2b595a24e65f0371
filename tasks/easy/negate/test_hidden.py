from solution import negate


def test_0():
    assert negate(-7) == 7


def test_1():
    assert negate(0) == 0


def test_2():
    assert negate(12) == -12


def test_3():
    assert negate(5) == -5
