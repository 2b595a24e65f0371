def is_balanced(text: str) -> bool:
    """Return True if (), [] and {} are balanced in `text`, ignoring quoted string literals."""
