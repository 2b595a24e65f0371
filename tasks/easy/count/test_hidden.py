from solution import count


def test_0():
    assert count([]) == 0


def test_1():
    assert count(['a']) == 1


def test_2():
    assert count([0, 0]) == 2


def test_3():
    assert count([1, 2, 3]) == 3
