from solution import absolute


def test_0():
    assert absolute(-3) == 3
