from solution import largest


def test_0():
    assert largest([-2, -7]) == -2


def test_1():
    assert largest([4]) == 4


def test_2():
    assert largest([2, 9, 1]) == 9


def test_3():
    assert largest([3, 1, 2]) == 3


def test_4():
    assert largest([1, 5, 3]) == 5
