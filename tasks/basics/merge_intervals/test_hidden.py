import itertools
import random

import pytest

from solution import merge_intervals


def test_example():
    assert merge_intervals([(1, 3), (2, 6), (8, 10), (15, 18)]) == [(1, 6), (8, 10), (15, 18)]


def test_empty_and_single():
    assert merge_intervals([]) == []
    assert merge_intervals([(4, 4)]) == [(4, 4)]


def test_touching_merges_gap_does_not():
    assert merge_intervals([(1, 3), (3, 5)]) == [(1, 5)]
    assert merge_intervals([(1, 2), (3, 4)]) == [(1, 2), (3, 4)]


def test_unsorted_and_contained():
    assert merge_intervals([(10, 20), (0, 1), (12, 15), (1, 2)]) == [(0, 2), (10, 20)]


def test_negative_and_float():
    assert merge_intervals([(-5, -1), (-2, 0.5), (0.5, 0.75)]) == [(-5, 0.75)]


def test_returns_tuples_and_does_not_mutate():
    data = [[3, 4], [1, 2], [2, 3]]
    snapshot = [list(pair) for pair in data]
    result = merge_intervals(data)
    assert result == [(1, 4)]
    assert all(isinstance(pair, tuple) for pair in result)
    assert data == snapshot


def test_invalid_interval():
    with pytest.raises(ValueError):
        merge_intervals([(1, 2), (5, 3)])


def test_large_random_against_bruteforce():
    rng = random.Random(99)
    intervals = []
    for _ in range(20000):
        start = rng.randrange(0, 200000)
        intervals.append((start, start + rng.randrange(0, 8)))
    result = merge_intervals(intervals)
    for (_, end), (next_start, _) in itertools.pairwise(result):
        assert end < next_start
    covered = set()
    for start, end in intervals:
        covered.update(range(start, end + 1))
    assert sum(end - start + 1 for start, end in result) == len(covered)
