from solution import total


def test_0():
    assert total([]) == 0


def test_1():
    assert total([-1, 1]) == 0


def test_2():
    assert total([10]) == 10


def test_3():
    assert total([1, 2, 3]) == 6
