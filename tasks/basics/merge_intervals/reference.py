def merge_intervals(intervals: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """Merge overlapping or touching closed intervals and return them sorted by start."""
    for start, end in intervals:
        if start > end:
            raise ValueError(f"invalid interval ({start}, {end})")
    merged: list[tuple[int, int]] = []
    for start, end in sorted((start, end) for start, end in intervals):
        if merged and start <= merged[-1][1]:
            last_start, last_end = merged[-1]
            merged[-1] = (last_start, max(last_end, end))
        else:
            merged.append((start, end))
    return merged
