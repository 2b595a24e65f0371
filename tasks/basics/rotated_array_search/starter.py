def search_rotated(nums: list[int], target: int) -> int:
    """Return the index of `target` in the rotated sorted list `nums`, or -1."""
