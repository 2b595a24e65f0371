import pytest

from solution import parse_csv_line


def test_plain_fields():
    assert parse_csv_line("a,b,c") == ["a", "b", "c"]


def test_empty_line_and_trailing_delimiter():
    assert parse_csv_line("") == [""]
    assert parse_csv_line("a,") == ["a", ""]
    assert parse_csv_line(",") == ["", ""]
    assert parse_csv_line(",,") == ["", "", ""]


def test_quoted_fields():
    assert parse_csv_line('a,"b,c",d') == ["a", "b,c", "d"]
    assert parse_csv_line('"",x') == ["", "x"]
    assert parse_csv_line('"x"') == ["x"]


def test_doubled_quotes():
    assert parse_csv_line('"say ""hi""",,x') == ['say "hi"', "", "x"]
    assert parse_csv_line('""""') == ['"']


def test_whitespace_is_preserved():
    assert parse_csv_line(" a , b ") == [" a ", " b "]
    assert parse_csv_line('"  x  ",y') == ["  x  ", "y"]


def test_quote_inside_unquoted_field_is_literal():
    assert parse_csv_line('ab"c,d') == ['ab"c', "d"]
    assert parse_csv_line(' "a",b') == [' "a"', "b"]


def test_newline_inside_quotes():
    assert parse_csv_line('"line1\nline2",z') == ["line1\nline2", "z"]


def test_custom_delimiter():
    assert parse_csv_line('a;"b;c";d,e', delimiter=";") == ["a", "b;c", "d,e"]
    assert parse_csv_line("x\ty", delimiter="\t") == ["x", "y"]


def test_unicode():
    assert parse_csv_line('日本,"é,è",ß') == ["日本", "é,è", "ß"]


def test_errors():
    with pytest.raises(ValueError):
        parse_csv_line('"unterminated,a')
    with pytest.raises(ValueError):
        parse_csv_line('"a"b,c')
    with pytest.raises(ValueError):
        parse_csv_line('"a" ,c')
    with pytest.raises(ValueError):
        parse_csv_line("a,b", delimiter=";;")
    with pytest.raises(ValueError):
        parse_csv_line("a,b", delimiter='"')
    with pytest.raises(ValueError):
        parse_csv_line("a,b", delimiter="")


def test_many_fields():
    line = ",".join(f'"v{i},{i}"' if i % 2 else f"v{i}" for i in range(20000))
    fields = parse_csv_line(line)
    assert len(fields) == 20000
    assert fields[1] == "v1,1"
    assert fields[19998] == "v19998"
