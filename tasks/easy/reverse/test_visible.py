from solution import reverse


def test_0():
    assert reverse('abc') == 'cba'
