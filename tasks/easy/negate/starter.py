def negate(x):
    """Return minus x."""
