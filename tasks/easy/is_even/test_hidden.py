from solution import is_even


def test_0():
    assert is_even(7) == False


def test_1():
    assert is_even(0) == True


def test_2():
    assert is_even(-3) == False


def test_3():
    assert is_even(4) == True
