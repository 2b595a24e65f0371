def subtract(a, b):
    """Return a minus b."""
    return a - b
