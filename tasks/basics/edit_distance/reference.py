def edit_distance(a: str, b: str) -> int:
    """Return the optimal string alignment distance between `a` and `b`."""
    before_previous: list[int] = []
    previous = list(range(len(b) + 1))
    for i in range(1, len(a) + 1):
        current = [i] + [0] * len(b)
        for j in range(1, len(b) + 1):
            cost = 0 if a[i - 1] == b[j - 1] else 1
            best = min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + cost)
            if i > 1 and j > 1 and a[i - 1] == b[j - 2] and a[i - 2] == b[j - 1]:
                best = min(best, before_previous[j - 2] + 1)
            current[j] = best
        before_previous, previous = previous, current
    return previous[len(b)]
