def edit_distance(a: str, b: str) -> int:
    """Return the optimal string alignment distance between `a` and `b`."""
