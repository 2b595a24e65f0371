def caesar(text: str, shift: int) -> str:
    """Shift the ASCII letters of `text` by `shift` positions, preserving case."""
