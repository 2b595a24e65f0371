import itertools
import random
from bisect import bisect_left

from solution import longest_increasing_subsequence


def lis_length(nums):
    tails = []
    for x in nums:
        i = bisect_left(tails, x)
        if i == len(tails):
            tails.append(x)
        else:
            tails[i] = x
    return len(tails)


def assert_valid(nums, result):
    assert len(result) == lis_length(nums)
    assert all(a < b for a, b in itertools.pairwise(result))
    it = iter(nums)
    assert all(any(x == y for y in it) for x in result), "not a subsequence"


def test_classic():
    nums = [10, 9, 2, 5, 3, 7, 101, 18]
    result = longest_increasing_subsequence(nums)
    assert len(result) == 4
    assert_valid(nums, result)


def test_empty_and_single():
    assert longest_increasing_subsequence([]) == []
    assert longest_increasing_subsequence([42]) == [42]


def test_duplicates_not_strict():
    assert longest_increasing_subsequence([7, 7, 7, 7]) == [7]
    nums = [1, 2, 2, 2, 3]
    assert longest_increasing_subsequence(nums) == [1, 2, 3]


def test_sorted_and_reversed():
    assert longest_increasing_subsequence(list(range(50))) == list(range(50))
    assert len(longest_increasing_subsequence(list(range(50, 0, -1)))) == 1


def test_negative_numbers():
    nums = [-5, -10, -3, -7, 0, -1, 4]
    result = longest_increasing_subsequence(nums)
    assert len(result) == 4
    assert_valid(nums, result)


def test_does_not_mutate():
    nums = [3, 1, 2]
    longest_increasing_subsequence(nums)
    assert nums == [3, 1, 2]


def test_random_small_against_bruteforce_length():
    rng = random.Random(11)
    for _ in range(200):
        nums = [rng.randrange(10) for _ in range(rng.randrange(0, 15))]
        assert_valid(nums, longest_increasing_subsequence(nums))


def test_large_input_is_fast():
    rng = random.Random(2024)
    nums = [rng.randrange(10**6) for _ in range(100000)]
    result = longest_increasing_subsequence(nums)
    assert_valid(nums, result)
