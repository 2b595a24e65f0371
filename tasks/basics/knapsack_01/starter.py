def knapsack(items: list[tuple[int, int]], capacity: int) -> tuple[int, list[int]]:
    """Solve the 0/1 knapsack problem; return (best value, sorted indices of chosen items)."""
