from solution import search_range


def test_found():
    assert search_range([5, 7, 7, 8, 8, 10], 8) == (3, 4)


def test_missing():
    assert search_range([5, 7, 7, 8, 8, 10], 6) == (-1, -1)
