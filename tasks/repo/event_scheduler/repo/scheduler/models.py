from dataclasses import dataclass
from datetime import date

from scheduler.timeutil import parse_hhmm


@dataclass(frozen=True)
class Event:
    title: str
    day: date
    start: int
    end: int

    def __post_init__(self) -> None:
        if not 0 <= self.start < self.end <= 24 * 60:
            raise ValueError("event must start before it ends, within one day")

    @classmethod
    def at(cls, title: str, day: date, start: str, end: str) -> "Event":
        """Build an event from 'HH:MM' strings."""
        return cls(title, day, parse_hhmm(start), parse_hhmm(end))

    def overlaps(self, other: "Event") -> bool:
        return self.day == other.day and self.start < other.end and other.start < self.end
