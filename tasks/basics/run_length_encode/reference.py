def rle_encode(text: str) -> str:
    """Run-length encode `text`; runs of length 1 are written without a count."""
    if any(ch.isdigit() for ch in text):
        raise ValueError("text must not contain digits")
    parts: list[str] = []
    i = 0
    n = len(text)
    while i < n:
        j = i + 1
        while j < n and text[j] == text[i]:
            j += 1
        run = j - i
        parts.append(f"{run}{text[i]}" if run > 1 else text[i])
        i = j
    return "".join(parts)
