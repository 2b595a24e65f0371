from collections import deque


def sliding_window_max(nums: list[float], k: int) -> list[float]:
    """Return the maximum of each window of `k` consecutive elements of `nums`."""
    if k < 1:
        raise ValueError("k must be at least 1")
    window: deque[int] = deque()
    result: list[float] = []
    for index, value in enumerate(nums):
        while window and nums[window[-1]] <= value:
            window.pop()
        window.append(index)
        if window[0] <= index - k:
            window.popleft()
        if index >= k - 1:
            result.append(nums[window[0]])
    return result
