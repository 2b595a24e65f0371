import pytest

from logtools.summary import summarize

LOG = """
2024-05-01 12:00:03 [WARN] api.auth: token expired for 'alice'
2024-05-01 12:00:01 INFO api: request 17 served in 12 ms
2024-05-01T11:59:59 [debug] db: connection pool size 5
this line is garbage
2024-05-01 12:00:09 [FATAL] worker-1: out of memory

2024-05-01 12:00:05 [info] api: request 18 served in 9 ms
2024-13-01 12:00:05 [INFO] api: impossible month
2024-05-01 12:00:06 [NOTICE] api: unknown level
2024-05-01 12:00:07 [ERR] api.auth: token expired for "bob"
2024-05-01 12:00:08 INFO api: request 19 served in   30 ms
""".splitlines()


def test_default_min_level_info():
    summary = summarize(LOG)
    assert summary == {
        "total": 6,
        "malformed": 3,
        "by_level": {"WARNING": 1, "INFO": 3, "CRITICAL": 1, "ERROR": 1},
        "top_messages": [
            ("request # served in # ms", 3),
            ("token expired for <str>", 2),
            ("out of memory", 1),
        ],
        "first": "2024-05-01T12:00:01",
        "last": "2024-05-01T12:00:09",
    }


def test_debug_includes_everything_parsed():
    summary = summarize(LOG, "debug")
    assert summary["total"] == 7
    assert summary["by_level"]["DEBUG"] == 1
    assert summary["first"] == "2024-05-01T11:59:59"


def test_alias_min_level():
    summary = summarize(LOG, "warn")
    assert summary["total"] == 3
    assert summary["by_level"] == {"WARNING": 1, "CRITICAL": 1, "ERROR": 1}
    assert summary["top_messages"] == [("token expired for <str>", 2), ("out of memory", 1)]
    assert summary["malformed"] == 3


def test_unknown_min_level():
    with pytest.raises(ValueError):
        summarize(LOG, "verbose")


def test_empty_and_blank_input():
    empty = {"total": 0, "malformed": 0, "by_level": {}, "top_messages": [], "first": None, "last": None}
    assert summarize([]) == empty
    assert summarize(["", "   ", "\t"]) == empty


def test_nothing_above_threshold():
    summary = summarize(["2024-01-01 00:00:00 DEBUG x: hi", "junk"], "error")
    assert summary == {
        "total": 0,
        "malformed": 1,
        "by_level": {},
        "top_messages": [],
        "first": None,
        "last": None,
    }


def test_top_three_tie_break():
    lines = [f"2024-01-01 00:00:0{i} INFO s: {text}" for i, text in enumerate(["b", "a", "c", "d", "a", "c"])]
    assert summarize(lines)["top_messages"] == [("a", 2), ("c", 2), ("b", 1)]


def test_accepts_any_iterable():
    lines = (f"2024-02-{day:02d} 10:00:00 ERROR job: failed" for day in range(1, 29))
    summary = summarize(lines, "ERROR")
    assert summary["total"] == 28
    assert summary["last"] == "2024-02-28T10:00:00"
