"""Clock times are handled as minutes since midnight."""

WORKDAY_START = 9 * 60
WORKDAY_END = 17 * 60 + 30
SLOT_GRANULARITY = 15
"""Meetings may only start on multiples of this many minutes."""


def parse_hhmm(text: str) -> int:
    hours, _, minutes = text.partition(":")
    value = int(hours) * 60 + int(minutes)
    if not 0 <= value <= 24 * 60:
        raise ValueError(f"invalid time {text!r}")
    return value


def format_hhmm(minutes: int) -> str:
    return f"{minutes // 60:02d}:{minutes % 60:02d}"


def round_up(minutes: int, step: int = SLOT_GRANULARITY) -> int:
    """Smallest multiple of `step` that is >= `minutes`."""
    return -(-minutes // step) * step
