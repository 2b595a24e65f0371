from solution import absolute


def test_0():
    assert absolute(4) == 4


def test_1():
    assert absolute(0) == 0


def test_2():
    assert absolute(-12) == 12


def test_3():
    assert absolute(-3) == 3
