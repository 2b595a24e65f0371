def vigenere(text: str, key: str, *, decrypt: bool = False) -> str:
    """Encrypt `text` with the Vigenère cipher using `key` (or decrypt when `decrypt` is true)."""
