from solution import halve


def test_0():
    assert halve(4) == 2.0
