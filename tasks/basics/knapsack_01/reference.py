def knapsack(items: list[tuple[int, int]], capacity: int) -> tuple[int, list[int]]:
    """Solve the 0/1 knapsack problem; return (best value, sorted indices of chosen items)."""
    if capacity < 0:
        raise ValueError("capacity must be non-negative")
    for weight, value in items:
        if weight < 0 or value < 0:
            raise ValueError("weights and values must be non-negative")
    best = [0] * (capacity + 1)
    taken: list[list[bool]] = []
    for weight, value in items:
        row = [False] * (capacity + 1)
        for remaining in range(capacity, weight - 1, -1):
            candidate = best[remaining - weight] + value
            if candidate > best[remaining]:
                best[remaining] = candidate
                row[remaining] = True
        taken.append(row)
    chosen: list[int] = []
    remaining = capacity
    for index in range(len(items) - 1, -1, -1):
        if taken[index][remaining]:
            chosen.append(index)
            remaining -= items[index][0]
    chosen.reverse()
    return best[capacity], chosen
