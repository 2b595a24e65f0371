from solution import join_words


def test_0():
    assert join_words('hello', 'world') == 'hello world'


def test_1():
    assert join_words('', 'x') == ' x'


def test_2():
    assert join_words('1', '2') == '1 2'


def test_3():
    assert join_words('a', 'b') == 'a b'
