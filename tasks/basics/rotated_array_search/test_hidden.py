from solution import search_rotated


def test_every_element_every_rotation():
    base = [1, 3, 5, 7, 9, 11, 13]
    for shift in range(len(base)):
        rotated = base[shift:] + base[:shift]
        for index, value in enumerate(rotated):
            assert search_rotated(rotated, value) == index
        for missing in (0, 2, 8, 14):
            assert search_rotated(rotated, missing) == -1


def test_empty():
    assert search_rotated([], 5) == -1


def test_single_element():
    assert search_rotated([5], 5) == 0
    assert search_rotated([5], 4) == -1


def test_two_elements():
    assert search_rotated([2, 1], 1) == 1
    assert search_rotated([2, 1], 2) == 0
    assert search_rotated([1, 2], 2) == 1


def test_not_rotated():
    assert search_rotated(list(range(10)), 9) == 9


def test_negative_values():
    assert search_rotated([-1, 0, 3, -20, -7], -7) == 4


def test_large_list():
    n = 1_000_000
    pivot = 654_321
    nums = list(range(pivot, n)) + list(range(pivot))
    assert search_rotated(nums, 0) == n - pivot
    assert search_rotated(nums, pivot) == 0
    assert search_rotated(nums, n - 1) == n - pivot - 1
    assert search_rotated(nums, 42) == n - pivot + 42
    assert search_rotated(nums, n) == -1
