from collections import Counter
from collections.abc import Iterable

import logtools.levels as log_levels
from logtools.parser import parse_line
from logtools.text import fingerprint


def summarize(lines: Iterable[str], min_level: str = "INFO") -> dict:
    """Count the parsed records at or above `min_level` and summarise them."""
    threshold = log_levels.severity(min_level)
    malformed = 0
    by_level: Counter[str] = Counter()
    groups: Counter[str] = Counter()
    timestamps = []
    for line in lines:
        if not line.strip():
            continue
        record = parse_line(line)
        if record is None:
            malformed += 1
            continue
        if log_levels.severity(record.level) < threshold:
            continue
        by_level[record.level] += 1
        groups[fingerprint(record.message)] += 1
        timestamps.append(record.timestamp)
    top = sorted(groups.items(), key=lambda item: (-item[1], item[0]))[:3]
    return {
        "total": len(timestamps),
        "malformed": malformed,
        "by_level": dict(by_level),
        "top_messages": top,
        "first": min(timestamps).isoformat() if timestamps else None,
        "last": max(timestamps).isoformat() if timestamps else None,
    }
