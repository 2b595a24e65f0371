from solution import last


def test_0():
    assert last(['a', 'b']) == 'b'


def test_1():
    assert last([7]) == 7


def test_2():
    assert last([0, 5]) == 5


def test_3():
    assert last([1, 2, 3]) == 3
