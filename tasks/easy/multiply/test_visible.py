from solution import multiply


def test_0():
    assert multiply(3, 4) == 12
