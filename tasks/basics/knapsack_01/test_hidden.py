import itertools
import random

import pytest

from solution import knapsack


def check(items, capacity, expected_value):
    value, chosen = knapsack(items, capacity)
    assert value == expected_value
    assert chosen == sorted(set(chosen))
    assert all(0 <= i < len(items) for i in chosen)
    assert sum(items[i][0] for i in chosen) <= capacity
    assert sum(items[i][1] for i in chosen) == value


def brute_force(items, capacity):
    best = 0
    for r in range(len(items) + 1):
        for combo in itertools.combinations(items, r):
            if sum(w for w, _ in combo) <= capacity:
                best = max(best, sum(v for _, v in combo))
    return best


def test_example():
    check([(1, 1), (3, 4), (4, 5), (5, 7)], 7, 9)


def test_empty_and_zero_capacity():
    assert knapsack([], 0) == (0, [])
    check([(1, 10), (2, 20)], 0, 0)


def test_nothing_fits():
    assert knapsack([(5, 10), (6, 12)], 4) == (0, [])


def test_everything_fits():
    assert knapsack([(1, 2), (2, 3), (3, 4)], 100) == (9, [0, 1, 2])


def test_zero_weight_items():
    check([(0, 5), (10, 1), (0, 7)], 3, 12)


def test_each_item_at_most_once():
    check([(2, 3)], 10, 3)


def test_invalid_inputs():
    with pytest.raises(ValueError):
        knapsack([(1, 1)], -1)
    with pytest.raises(ValueError):
        knapsack([(-1, 5)], 10)
    with pytest.raises(ValueError):
        knapsack([(1, -5)], 10)


def test_random_against_bruteforce():
    rng = random.Random(8)
    for _ in range(40):
        items = [(rng.randrange(0, 12), rng.randrange(0, 30)) for _ in range(rng.randrange(0, 9))]
        capacity = rng.randrange(0, 30)
        check(items, capacity, brute_force(items, capacity))


def test_larger_instance():
    rng = random.Random(77)
    items = [(rng.randrange(1, 100), rng.randrange(1, 1000)) for _ in range(60)]
    value, chosen = knapsack(items, 1500)
    assert sum(items[i][0] for i in chosen) <= 1500
    assert sum(items[i][1] for i in chosen) == value
    assert value >= sum(v for _, v in items) // 2
