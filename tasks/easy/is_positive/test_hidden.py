from solution import is_positive


def test_0():
    assert is_positive(-1) == False


def test_1():
    assert is_positive(0) == False


def test_2():
    assert is_positive(100) == True


def test_3():
    assert is_positive(3) == True
