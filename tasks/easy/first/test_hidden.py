from solution import first


def test_0():
    assert first([1, 3]) == 1


def test_1():
    assert first(['b', 'a', 'c']) == 'b'


def test_2():
    assert first([7]) == 7


def test_3():
    assert first([0, 5]) == 0


def test_4():
    assert first([3, 1, 2]) == 3
