def first(items):
    """Return the first item of a non-empty list."""
    return items[0]
