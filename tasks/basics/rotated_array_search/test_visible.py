from solution import search_rotated


def test_found():
    assert search_rotated([4, 5, 6, 7, 0, 1, 2], 0) == 4


def test_missing():
    assert search_rotated([4, 5, 6, 7, 0, 1, 2], 3) == -1
