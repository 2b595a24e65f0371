def reverse(text):
    """Return the string reversed."""
    return text[::-1]
