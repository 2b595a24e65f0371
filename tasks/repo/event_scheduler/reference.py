from datetime import date

from scheduler import timeutil
from scheduler.agenda import Agenda
from scheduler.errors import SchedulingError


def find_free_slots(agenda: Agenda, day: date, duration: int, *, buffer: int = 0) -> list[tuple[str, str]]:
    """Free working-hour periods of `day` long enough for a `duration`-minute meeting."""
    if duration <= 0:
        raise SchedulingError("duration must be positive")
    if buffer < 0:
        raise SchedulingError("buffer must not be negative")
    day_start, day_end = timeutil.WORKDAY_START, timeutil.WORKDAY_END
    periods: list[tuple[int, int]] = []
    cursor = day_start
    for event in agenda.events_on(day):
        blocked_start = min(max(event.start - buffer, day_start), day_end)
        if blocked_start > cursor:
            periods.append((cursor, blocked_start))
        cursor = min(max(cursor, event.end + buffer), day_end)
    if cursor < day_end:
        periods.append((cursor, day_end))
    slots: list[tuple[str, str]] = []
    for start, end in periods:
        start = timeutil.round_up(start)
        if end - start >= duration:
            slots.append((timeutil.format_hhmm(start), timeutil.format_hhmm(end)))
    return slots
