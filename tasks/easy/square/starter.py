def square(x):
    """Return x squared."""
