from solution import join_words


def test_0():
    assert join_words('a', 'b') == 'a b'
