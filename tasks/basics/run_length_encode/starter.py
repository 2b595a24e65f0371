def rle_encode(text: str) -> str:
    """Run-length encode `text`; runs of length 1 are written without a count."""
