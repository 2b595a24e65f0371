from solution import repeat


def test_0():
    assert repeat('ab', 3) == 'ababab'
