from solution import reverse


def test_0():
    assert reverse('') == ''


def test_1():
    assert reverse('a') == 'a'


def test_2():
    assert reverse('hello') == 'olleh'


def test_3():
    assert reverse('abc') == 'cba'
