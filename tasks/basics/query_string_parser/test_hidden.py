from solution import parse_query_string


def test_basic():
    assert parse_query_string("a=1&b=2") == {"a": ["1"], "b": ["2"]}


def test_empty_inputs():
    assert parse_query_string("") == {}
    assert parse_query_string("?") == {}
    assert parse_query_string("&&&") == {}


def test_only_first_question_mark_removed():
    assert parse_query_string("??a=1") == {"?a": ["1"]}


def test_empty_segments_skipped_and_order():
    result = parse_query_string("&z=1&&a=2&z=3&")
    assert result == {"z": ["1", "3"], "a": ["2"]}
    assert list(result) == ["z", "a"]


def test_first_equals_splits():
    assert parse_query_string("expr=a=b=c&=x&y=") == {"expr": ["a=b=c"], "": ["x"], "y": [""]}


def test_plus_and_percent():
    assert parse_query_string("q=c%2B%2B+is+fun&sp=%20x%20") == {"q": ["c++ is fun"], "sp": [" x "]}


def test_unicode_and_encoded_names():
    assert parse_query_string("%E6%97%A5%E6%9C%AC=%F0%9F%98%80&na%20me=v") == {"日本": ["😀"], "na me": ["v"]}


def test_malformed_escapes_kept():
    assert parse_query_string("a=%zz&b=100%&c=%4") == {"a": ["%zz"], "b": ["100%"], "c": ["%4"]}


def test_invalid_utf8_replaced():
    assert parse_query_string("x=%FF") == {"x": ["\ufffd"]}


def test_many_values():
    query = "&".join(f"k={i}" for i in range(10000))
    result = parse_query_string(query)
    assert result["k"] == [str(i) for i in range(10000)]
