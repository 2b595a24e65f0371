def total(items):
    """Return the sum of a list of numbers."""
