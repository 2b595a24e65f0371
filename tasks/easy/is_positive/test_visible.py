from solution import is_positive


def test_0():
    assert is_positive(3) == True
