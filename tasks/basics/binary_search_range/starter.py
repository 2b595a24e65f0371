def search_range(nums: list[int], target: int) -> tuple[int, int]:
    """Return (first, last) indices of `target` in sorted `nums`, or (-1, -1) if absent."""
