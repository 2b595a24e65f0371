from solution import first


def test_0():
    assert first([3, 1, 2]) == 3
