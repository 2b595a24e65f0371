def largest(items):
    """Return the largest item of a non-empty list."""
    return max(items)
