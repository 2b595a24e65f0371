import re


def parse_duration(text: str) -> int:
    """Convert a duration like "1d2h3m4s" into a number of seconds."""
    match = re.fullmatch(r"(?:([0-9]+)d)?(?:([0-9]+)h)?(?:([0-9]+)m)?(?:([0-9]+)s)?", text)
    if not text or match is None:
        raise ValueError(f"invalid duration: {text!r}")
    multipliers = (86400, 3600, 60, 1)
    components = zip(match.groups(), multipliers, strict=True)
    return sum(int(value) * factor for value, factor in components if value)
