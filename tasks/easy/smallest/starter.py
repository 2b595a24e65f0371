def smallest(items):
    """Return the smallest item of a non-empty list."""
