def vigenere(text: str, key: str, *, decrypt: bool = False) -> str:
    """Encrypt `text` with the Vigenère cipher using `key` (or decrypt when `decrypt` is true)."""
    if not key or not all(("a" <= ch <= "z") or ("A" <= ch <= "Z") for ch in key):
        raise ValueError("key must be a non-empty string of ASCII letters")
    sign = -1 if decrypt else 1
    shifts = [sign * (ord(ch) - ord("a")) for ch in key.lower()]
    out: list[str] = []
    position = 0
    for ch in text:
        if "a" <= ch <= "z":
            base = ord("a")
        elif "A" <= ch <= "Z":
            base = ord("A")
        else:
            out.append(ch)
            continue
        shift = shifts[position % len(shifts)]
        out.append(chr((ord(ch) - base + shift) % 26 + base))
        position += 1
    return "".join(out)
