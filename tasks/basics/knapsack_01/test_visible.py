from solution import knapsack


def test_example():
    assert knapsack([(1, 1), (3, 4), (4, 5), (5, 7)], 7) == (9, [1, 2])


def test_no_items():
    assert knapsack([], 10) == (0, [])
