def search_range(nums: list[int], target: int) -> tuple[int, int]:
    """Return (first, last) indices of `target` in sorted `nums`, or (-1, -1) if absent."""

    def lower_bound(value: int) -> int:
        lo, hi = 0, len(nums)
        while lo < hi:
            mid = (lo + hi) // 2
            if nums[mid] < value:
                lo = mid + 1
            else:
                hi = mid
        return lo

    first = lower_bound(target)
    if first == len(nums) or nums[first] != target:
        return -1, -1
    last = first
    lo, hi = first, len(nums)
    while lo < hi:
        mid = (lo + hi) // 2
        if nums[mid] <= target:
            last = mid
            lo = mid + 1
        else:
            hi = mid
    return first, last
