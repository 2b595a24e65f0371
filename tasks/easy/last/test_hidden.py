from solution import last


def test_0():
    assert last([5, 1]) == 1


def test_1():
    assert last(['b', 'c', 'a']) == 'a'


def test_2():
    assert last([7]) == 7


def test_3():
    assert last([0, 5]) == 5


def test_4():
    assert last([3, 1, 2]) == 2
