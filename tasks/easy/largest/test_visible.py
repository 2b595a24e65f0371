from solution import largest


def test_0():
    assert largest([1, 5, 3]) == 5
