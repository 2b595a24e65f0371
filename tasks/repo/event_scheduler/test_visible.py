from datetime import date

from scheduler.agenda import Agenda
from scheduler.models import Event
from scheduler.planner import find_free_slots

DAY = date(2024, 5, 6)


def test_single_event():
    agenda = Agenda()
    agenda.add(Event.at("Standup", DAY, "10:00", "11:00"))
    assert find_free_slots(agenda, DAY, 30) == [("09:00", "10:00"), ("11:00", "17:30")]


def test_empty_day():
    assert find_free_slots(Agenda(), DAY, 60) == [("09:00", "17:30")]
