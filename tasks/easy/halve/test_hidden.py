from solution import halve


def test_0():
    assert halve(3) == 1.5


def test_1():
    assert halve(0) == 0.0


def test_2():
    assert halve(-8) == -4.0


def test_3():
    assert halve(4) == 2.0
