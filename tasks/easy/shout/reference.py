def shout(text):
    """Return the string in upper case."""
    return text.upper()
