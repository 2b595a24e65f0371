from solution import count


def test_0():
    assert count([1, 2, 3]) == 3
