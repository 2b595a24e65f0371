"""Parsing lines like '2024-05-01 12:00:03 [WARN] api.auth: token expired'."""

import re
from dataclasses import dataclass
from datetime import datetime

from logtools.levels import normalize_level

_LINE = re.compile(
    r"(?P<ts>\d{4}-\d{2}-\d{2}[T ]\d{2}:\d{2}:\d{2})\s+"
    r"\[?(?P<level>[A-Za-z]+)\]?\s+"
    r"(?P<source>[\w.-]+):\s*(?P<message>.*)"
)


@dataclass(frozen=True)
class LogRecord:
    timestamp: datetime
    level: str
    source: str
    message: str


def parse_line(line: str) -> LogRecord | None:
    """Parse one line; malformed lines (bad layout, date or level) give None."""
    match = _LINE.fullmatch(line.strip())
    if match is None:
        return None
    try:
        timestamp = datetime.fromisoformat(match["ts"].replace(" ", "T"))
        level = normalize_level(match["level"])
    except ValueError:
        return None
    return LogRecord(timestamp, level, match["source"], match["message"].strip())
