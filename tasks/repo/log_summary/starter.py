from collections import Counter
from collections.abc import Iterable

import logtools.levels as log_levels
from logtools.parser import parse_line
from logtools.text import fingerprint


def summarize(lines: Iterable[str], min_level: str = "INFO") -> dict:
    """Count the parsed records at or above `min_level` and summarise them."""
