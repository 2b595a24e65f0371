from solution import shout


def test_0():
    assert shout('') == ''


def test_1():
    assert shout('Hi!') == 'HI!'


def test_2():
    assert shout('x') == 'X'


def test_3():
    assert shout('abc') == 'ABC'
