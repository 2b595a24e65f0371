def count(items):
    """Return the number of items in a list."""
