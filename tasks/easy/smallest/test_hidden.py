from solution import smallest


def test_0():
    assert smallest([-2, -7]) == -7


def test_1():
    assert smallest([4]) == 4


def test_2():
    assert smallest([9, 1, 5]) == 1


def test_3():
    assert smallest([3, 2, 8]) == 2


def test_4():
    assert smallest([1, 5, 3]) == 1
