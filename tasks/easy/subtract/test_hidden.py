from solution import subtract


def test_0():
    assert subtract(0, 4) == -4


def test_1():
    assert subtract(7, 7) == 0


def test_2():
    assert subtract(-2, -5) == 3


def test_3():
    assert subtract(5, 3) == 2
