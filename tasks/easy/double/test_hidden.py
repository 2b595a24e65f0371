from solution import double


def test_0():
    assert double(-3) == -6


def test_1():
    assert double(0) == 0


def test_2():
    assert double(21) == 42


def test_3():
    assert double(2) == 4
