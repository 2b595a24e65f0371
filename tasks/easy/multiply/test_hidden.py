from solution import multiply


def test_0():
    assert multiply(0, 9) == 0


def test_1():
    assert multiply(-2, 5) == -10


def test_2():
    assert multiply(7, 7) == 49


def test_3():
    assert multiply(3, 4) == 12
