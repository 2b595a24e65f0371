def absolute(x):
    """Return the absolute value of x."""
