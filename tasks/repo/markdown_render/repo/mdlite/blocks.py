"""Classifying source lines into block-level kinds."""

import re
from typing import NamedTuple

_HEADING = re.compile(r"(#{1,6})\s+(.+)")
_BULLET = re.compile(r"[-*+]\s+(.+)")
_ORDERED = re.compile(r"[0-9]+[.)]\s+(.+)")


class Line(NamedTuple):
    kind: str
    """One of: blank, fence, heading, bullet, ordered, text."""
    text: str
    level: int = 0


def classify(line: str) -> Line:
    """Classify one line that is not inside a fenced code block.

    For a fence the text is the info string (e.g. the language), for a heading the title and
    its level, for list items the item text, for text the stripped line.
    """
    stripped = line.strip()
    if not stripped:
        return Line("blank", "")
    if stripped.startswith("```"):
        return Line("fence", stripped[3:].strip())
    if match := _HEADING.fullmatch(stripped):
        return Line("heading", match.group(2).strip(), len(match.group(1)))
    if match := _BULLET.fullmatch(stripped):
        return Line("bullet", match.group(1))
    if match := _ORDERED.fullmatch(stripped):
        return Line("ordered", match.group(1))
    return Line("text", stripped)
