import random

import pytest

from solution import sliding_window_max


def test_example():
    assert sliding_window_max([1, 3, -1, -3, 5, 3, 6, 7], 3) == [3, 3, 5, 5, 6, 7]


def test_k_one_and_full_length():
    nums = [2, 9, -4, 9, 0]
    assert sliding_window_max(nums, 1) == nums
    assert sliding_window_max(nums, 5) == [9]


def test_empty_and_short():
    assert sliding_window_max([], 1) == []
    assert sliding_window_max([1, 2], 3) == []


def test_invalid_k():
    with pytest.raises(ValueError):
        sliding_window_max([1, 2, 3], 0)
    with pytest.raises(ValueError):
        sliding_window_max([], -2)


def test_duplicates_and_decreasing():
    assert sliding_window_max([5, 5, 5, 5], 2) == [5, 5, 5]
    assert sliding_window_max([9, 8, 7, 6, 5], 2) == [9, 8, 7, 6]


def test_floats():
    assert sliding_window_max([0.5, -1.5, 2.25, 2.0], 2) == [0.5, 2.25, 2.25]


def test_random_against_naive():
    rng = random.Random(5)
    for _ in range(100):
        nums = [rng.randrange(-20, 20) for _ in range(rng.randrange(0, 40))]
        k = rng.randrange(1, 10)
        expected = [max(nums[i : i + k]) for i in range(len(nums) - k + 1)]
        assert sliding_window_max(nums, k) == expected


def test_large_input_large_window():
    n, k = 200000, 5000
    nums = list(range(n))
    assert sliding_window_max(nums, k) == list(range(k - 1, n))
    reversed_nums = nums[::-1]
    result = sliding_window_max(reversed_nums, k)
    assert len(result) == n - k + 1
    assert result[0] == n - 1 and result[-1] == k - 1
