from solution import shout


def test_0():
    assert shout('abc') == 'ABC'
