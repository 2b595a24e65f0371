from logtools.summary import summarize


def test_example():
    lines = ["2024-05-01 12:00:03 [WARN] api: retry 3", "2024-05-01 12:00:01 INFO api: retry 4"]
    assert summarize(lines) == {
        "total": 2,
        "malformed": 0,
        "by_level": {"WARNING": 1, "INFO": 1},
        "top_messages": [("retry #", 2)],
        "first": "2024-05-01T12:00:01",
        "last": "2024-05-01T12:00:03",
    }


def test_no_lines():
    assert summarize([])["total"] == 0
