from solution import is_even


def test_0():
    assert is_even(4) == True
