def is_positive(x):
    """Return True if x is greater than zero."""
