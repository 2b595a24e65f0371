import re


def parse_duration(text: str) -> int:
    """Convert a duration like "1d2h3m4s" into a number of seconds."""
