from typing import List


class Solution:
    def maximumGap(self, nums: List[int]) -> int:
        ordered = sorted(nums)
        return max((b - a for a, b in zip(ordered, ordered[1:])), default=0)
