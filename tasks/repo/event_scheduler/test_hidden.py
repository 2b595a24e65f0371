from datetime import date

import pytest

from scheduler.agenda import Agenda
from scheduler.errors import SchedulingError
from scheduler.models import Event
from scheduler.planner import find_free_slots

DAY = date(2024, 5, 6)
OTHER = date(2024, 5, 7)


def agenda_with(*events):
    agenda = Agenda()
    for title, day, start, end in events:
        agenda.add(Event.at(title, day, start, end))
    return agenda


def test_empty_day_uses_working_hours():
    assert find_free_slots(Agenda(), DAY, 60) == [("09:00", "17:30")]
    assert find_free_slots(Agenda(), DAY, 510) == [("09:00", "17:30")]
    assert find_free_slots(Agenda(), DAY, 511) == []


def test_other_days_ignored():
    agenda = agenda_with(("x", OTHER, "09:00", "17:00"), ("y", DAY, "12:00", "13:00"))
    assert find_free_slots(agenda, DAY, 30) == [("09:00", "12:00"), ("13:00", "17:30")]


def test_start_rounded_up_to_quarter_hour():
    agenda = agenda_with(("a", DAY, "09:00", "09:50"), ("b", DAY, "10:20", "16:05"))
    assert find_free_slots(agenda, DAY, 15) == [("10:00", "10:20"), ("16:15", "17:30")]
    assert find_free_slots(agenda, DAY, 25) == [("16:15", "17:30")]


def test_buffer_around_events():
    agenda = agenda_with(("a", DAY, "10:00", "11:00"), ("b", DAY, "12:00", "12:30"))
    assert find_free_slots(agenda, DAY, 30, buffer=10) == [
        ("09:00", "09:50"),
        ("11:15", "11:50"),
        ("12:45", "17:30"),
    ]


def test_events_outside_working_hours_and_buffer_spill():
    agenda = agenda_with(("early", DAY, "07:00", "08:55"), ("late", DAY, "17:20", "19:00"))
    assert find_free_slots(agenda, DAY, 30) == [("09:00", "17:20")]
    assert find_free_slots(agenda, DAY, 30, buffer=10) == [("09:15", "17:10")]


def test_back_to_back_events_leave_no_gap():
    agenda = agenda_with(("a", DAY, "09:00", "12:00"), ("b", DAY, "12:00", "17:30"))
    assert find_free_slots(agenda, DAY, 1) == []


def test_event_covering_whole_day():
    agenda = agenda_with(("offsite", DAY, "08:00", "18:00"))
    assert find_free_slots(agenda, DAY, 5) == []


def test_invalid_arguments():
    with pytest.raises(SchedulingError):
        find_free_slots(Agenda(), DAY, 0)
    with pytest.raises(SchedulingError):
        find_free_slots(Agenda(), DAY, 30, buffer=-5)


def test_many_events():
    agenda = Agenda()
    for i in range(16):
        start = 9 * 60 + 30 * i
        agenda.add(Event(f"e{i}", DAY, start, start + 20))
    assert find_free_slots(agenda, DAY, 10) == [("17:00", "17:30")]
    assert find_free_slots(agenda, DAY, 31) == []
