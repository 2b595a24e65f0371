from solution import caesar


def test_hello():
    assert caesar("Hello, World!", 3) == "Khoor, Zruog!"


def test_negative_shift():
    assert caesar("abc", -1) == "zab"
