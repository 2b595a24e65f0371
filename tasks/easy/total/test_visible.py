from solution import total


def test_0():
    assert total([1, 2, 3]) == 6
