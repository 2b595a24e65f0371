from solution import add


def test_0():
    assert add(-1, 1) == 0


def test_1():
    assert add(10, 5) == 15


def test_2():
    assert add(0, 0) == 0


def test_3():
    assert add(1, 2) == 3
