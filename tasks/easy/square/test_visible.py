from solution import square


def test_0():
    assert square(3) == 9
