from collections import deque


def sliding_window_max(nums: list[float], k: int) -> list[float]:
    """Return the maximum of each window of `k` consecutive elements of `nums`."""
