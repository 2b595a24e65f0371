def reverse(text):
    """Return the string reversed."""
