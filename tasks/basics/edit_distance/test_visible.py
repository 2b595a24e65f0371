from solution import edit_distance


def test_kitten():
    assert edit_distance("kitten", "sitting") == 3


def test_transposition():
    assert edit_distance("abcd", "acbd") == 1
