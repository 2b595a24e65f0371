from solution import parse_duration


def test_hours_minutes():
    assert parse_duration("1h30m") == 5400


def test_days_seconds():
    assert parse_duration("2d3s") == 172803
