from solution import merge_intervals


def test_example():
    assert merge_intervals([(1, 3), (2, 6), (8, 10), (15, 18)]) == [(1, 6), (8, 10), (15, 18)]


def test_touching_lists():
    assert merge_intervals([[5, 7], [1, 5]]) == [(1, 7)]
