from solution import parse_csv_line


def test_quoted_delimiter():
    assert parse_csv_line('a,"b,c",d') == ["a", "b,c", "d"]


def test_escaped_quotes_and_empty_field():
    assert parse_csv_line('"say ""hi""",,x') == ['say "hi"', "", "x"]
