from solution import add


def test_0():
    assert add(1, 2) == 3
