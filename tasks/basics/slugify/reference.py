import re
import unicodedata


def slugify(text: str, max_length: int | None = None) -> str:
    """Return a lowercase ASCII slug for `text`, optionally limited to `max_length` characters."""
    if max_length is not None and max_length < 1:
        raise ValueError("max_length must be at least 1")
    ascii_text = unicodedata.normalize("NFKD", text).encode("ascii", "ignore").decode("ascii")
    slug = re.sub(r"[^a-z0-9]+", "-", ascii_text.lower()).strip("-")
    if max_length is not None:
        slug = slug[:max_length].rstrip("-")
    return slug
