from datetime import date

from scheduler import timeutil
from scheduler.agenda import Agenda
from scheduler.errors import SchedulingError


def find_free_slots(agenda: Agenda, day: date, duration: int, *, buffer: int = 0) -> list[tuple[str, str]]:
    """Free working-hour periods of `day` long enough for a `duration`-minute meeting."""
