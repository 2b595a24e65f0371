import unicodedata


def is_palindrome(text: str) -> bool:
    """Return True if `text` is a palindrome after NFKD, accent stripping, casefolding and filtering."""
