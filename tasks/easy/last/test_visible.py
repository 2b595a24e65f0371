from solution import last


def test_0():
    assert last([1, 2, 3]) == 3
