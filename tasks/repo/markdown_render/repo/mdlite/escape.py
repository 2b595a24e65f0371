_REPLACEMENTS = (("&", "&amp;"), ("<", "&lt;"), (">", "&gt;"), ('"', "&quot;"), ("'", "&#x27;"))


def escape_html(text: str) -> str:
    """Escape text for use in HTML element content and attribute values."""
    for char, entity in _REPLACEMENTS:
        text = text.replace(char, entity)
    return text
