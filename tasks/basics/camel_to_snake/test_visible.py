from solution import camel_to_snake


def test_acronym_in_middle():
    assert camel_to_snake("getHTTPResponseCode") == "get_http_response_code"


def test_simple():
    assert camel_to_snake("fooBar") == "foo_bar"
