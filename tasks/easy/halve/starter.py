def halve(x):
    """Return x divided by two (a float)."""
