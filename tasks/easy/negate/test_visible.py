from solution import negate


def test_0():
    assert negate(5) == -5
