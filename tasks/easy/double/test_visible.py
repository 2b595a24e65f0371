from solution import double


def test_0():
    assert double(2) == 4
