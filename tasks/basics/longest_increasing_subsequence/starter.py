from bisect import bisect_left


def longest_increasing_subsequence(nums: list[int]) -> list[int]:
    """Return one longest strictly increasing subsequence of `nums`."""
