from solution import first


def test_0():
    assert first([1, 2, 3]) == 1
