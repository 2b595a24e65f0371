def double(x):
    """Return twice x."""
