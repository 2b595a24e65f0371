from solution import parse_ini


def test_basic():
    text = "; comment\n[server]\nHost = example.com\nport=8080\n[empty]\n"
    assert parse_ini(text) == {"server": {"host": "example.com", "port": "8080"}, "empty": {}}


def test_empty_text():
    assert parse_ini("") == {}
