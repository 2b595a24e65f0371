def square(x):
    """Return x squared."""
    return x * x
