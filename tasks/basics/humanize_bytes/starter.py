def humanize_bytes(size: int, binary: bool = False) -> str:
    """Format a byte count with decimal (kB, MB, ...) or binary (KiB, MiB, ...) units."""
