def repeat(text, n):
    """Return text repeated n times."""
