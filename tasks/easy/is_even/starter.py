def is_even(n):
    """Return True if n is even, else False."""
