def wrap_text(text: str, width: int) -> list[str]:
    """Greedily wrap the words of `text` into lines of at most `width` characters."""
