from solution import last


def test_0():
    assert last([3, 1, 2]) == 2
