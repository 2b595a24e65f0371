def negate(x):
    """Return minus x."""
    return -x
