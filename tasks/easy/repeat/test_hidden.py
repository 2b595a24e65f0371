from solution import repeat


def test_0():
    assert repeat('x', 0) == ''


def test_1():
    assert repeat('', 5) == ''


def test_2():
    assert repeat('z', 1) == 'z'


def test_3():
    assert repeat('ab', 3) == 'ababab'
