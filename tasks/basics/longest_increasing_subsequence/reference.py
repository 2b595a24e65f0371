from bisect import bisect_left


def longest_increasing_subsequence(nums: list[int]) -> list[int]:
    """Return one longest strictly increasing subsequence of `nums`."""
    tail_values: list[int] = []
    tail_indices: list[int] = []
    previous = [-1] * len(nums)
    for index, value in enumerate(nums):
        position = bisect_left(tail_values, value)
        if position > 0:
            previous[index] = tail_indices[position - 1]
        if position == len(tail_values):
            tail_values.append(value)
            tail_indices.append(index)
        else:
            tail_values[position] = value
            tail_indices[position] = index
    result: list[int] = []
    index = tail_indices[-1] if tail_indices else -1
    while index != -1:
        result.append(nums[index])
        index = previous[index]
    result.reverse()
    return result
