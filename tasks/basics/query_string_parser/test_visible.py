from solution import parse_query_string


def test_repeated_and_flag():
    assert parse_query_string("?q=hello+world&tag=a&tag=b&flag") == {
        "q": ["hello world"],
        "tag": ["a", "b"],
        "flag": [""],
    }


def test_percent_decoding():
    assert parse_query_string("name=Jos%C3%A9&x=1%2B1") == {"name": ["José"], "x": ["1+1"]}
