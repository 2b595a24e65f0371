import unicodedata


def is_palindrome(text: str) -> bool:
    """Return True if `text` is a palindrome after NFKD, accent stripping, casefolding and filtering."""
    decomposed = unicodedata.normalize("NFKD", text)
    stripped = "".join(ch for ch in decomposed if not unicodedata.combining(ch))
    cleaned = [ch for ch in stripped.casefold() if ch.isalnum()]
    return cleaned == cleaned[::-1]
