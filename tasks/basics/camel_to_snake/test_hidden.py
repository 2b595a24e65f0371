from solution import camel_to_snake


def test_simple_cases():
    assert camel_to_snake("fooBar") == "foo_bar"
    assert camel_to_snake("FooBar") == "foo_bar"
    assert camel_to_snake("foo") == "foo"


def test_acronyms():
    assert camel_to_snake("HTTPServer") == "http_server"
    assert camel_to_snake("getHTTPResponseCode") == "get_http_response_code"
    assert camel_to_snake("IOError") == "io_error"
    assert camel_to_snake("ABC") == "abc"
    assert camel_to_snake("parseXML") == "parse_xml"


def test_digits():
    assert camel_to_snake("HTML5Parser") == "html5_parser"
    assert camel_to_snake("utf8Decoder") == "utf8_decoder"
    assert camel_to_snake("version2") == "version2"
    assert camel_to_snake("Area51Base") == "area51_base"


def test_existing_underscores_kept():
    assert camel_to_snake("already_snake") == "already_snake"
    assert camel_to_snake("_privateVar") == "_private_var"
    assert camel_to_snake("__dunderName__") == "__dunder_name__"
    assert camel_to_snake("Foo_Bar") == "foo_bar"


def test_single_letters():
    assert camel_to_snake("") == ""
    assert camel_to_snake("A") == "a"
    assert camel_to_snake("aB") == "a_b"
    assert camel_to_snake("iPhone") == "i_phone"


def test_alternating_acronym_boundaries():
    assert camel_to_snake("ABCdEFg") == "ab_cd_e_fg"


def test_non_ascii():
    assert camel_to_snake("naïveBayes") == "naïve_bayes"
    assert camel_to_snake("ÜberCool") == "über_cool"


def test_long_identifier():
    name = "PartOne" * 5000
    assert camel_to_snake(name) == "_".join(["part_one"] * 5000)
