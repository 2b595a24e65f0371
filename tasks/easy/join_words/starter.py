def join_words(a, b):
    """Return the two strings joined by one space."""
