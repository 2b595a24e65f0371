from datetime import date

from scheduler.errors import ConflictError
from scheduler.models import Event


class Agenda:
    """A person's events; overlapping events are refused."""

    def __init__(self) -> None:
        self._events: list[Event] = []

    def add(self, event: Event) -> None:
        for existing in self._events:
            if existing.overlaps(event):
                raise ConflictError(f"{event.title!r} overlaps {existing.title!r}")
        self._events.append(event)

    def events_on(self, day: date) -> list[Event]:
        """Events of `day` sorted by start time."""
        return sorted((e for e in self._events if e.day == day), key=lambda e: e.start)
