import re
import unicodedata


def slugify(text: str, max_length: int | None = None) -> str:
    """Return a lowercase ASCII slug for `text`, optionally limited to `max_length` characters."""
