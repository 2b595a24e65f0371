from solution import search_range


def test_found_duplicates():
    assert search_range([5, 7, 7, 8, 8, 10], 8) == (3, 4)
    assert search_range([5, 7, 7, 8, 8, 10], 7) == (1, 2)


def test_missing_values():
    nums = [5, 7, 7, 8, 8, 10]
    assert search_range(nums, 6) == (-1, -1)
    assert search_range(nums, 4) == (-1, -1)
    assert search_range(nums, 11) == (-1, -1)


def test_empty():
    assert search_range([], 0) == (-1, -1)


def test_single_and_ends():
    assert search_range([1], 1) == (0, 0)
    assert search_range([1, 2, 3], 1) == (0, 0)
    assert search_range([1, 2, 3], 3) == (2, 2)


def test_all_equal():
    assert search_range([4] * 1000, 4) == (0, 999)


def test_negative_numbers():
    assert search_range([-10, -3, -3, -3, 0, 2], -3) == (1, 3)


def test_returns_tuple_and_no_mutation():
    nums = [1, 2, 2, 3]
    result = search_range(nums, 2)
    assert result == (1, 2)
    assert isinstance(result, tuple)
    assert nums == [1, 2, 2, 3]


def test_large_input_many_queries():
    nums = [i // 3 for i in range(1_000_000)]
    for target in (0, 1, 12345, 333_332):
        assert search_range(nums, target) == (3 * target, 3 * target + 2)
    assert search_range(nums, 333_334) == (-1, -1)
    assert search_range(nums, -1) == (-1, -1)
