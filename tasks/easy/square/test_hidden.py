from solution import square


def test_0():
    assert square(-4) == 16


def test_1():
    assert square(0) == 0


def test_2():
    assert square(12) == 144


def test_3():
    assert square(3) == 9
