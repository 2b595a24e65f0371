from solution import subtract


def test_0():
    assert subtract(5, 3) == 2
