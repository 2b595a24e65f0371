def humanize_bytes(size: int, binary: bool = False) -> str:
    """Format a byte count with decimal (kB, MB, ...) or binary (KiB, MiB, ...) units."""
    if isinstance(size, bool) or not isinstance(size, int):
        raise TypeError("size must be an int")
    if binary:
        base, units = 1024, ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")
    else:
        base, units = 1000, ("B", "kB", "MB", "GB", "TB", "PB", "EB")
    sign = "-" if size < 0 else ""
    magnitude = abs(size)
    if magnitude < base:
        return f"{sign}{magnitude} B"
    exponent = 1
    while exponent < len(units) - 1 and base ** (exponent + 1) <= magnitude:
        exponent += 1
    text = f"{magnitude / base**exponent:.1f}"
    if float(text) >= base and exponent < len(units) - 1:
        exponent += 1
        text = f"{magnitude / base**exponent:.1f}"
    return f"{sign}{text} {units[exponent]}"
