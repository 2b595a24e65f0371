import pytest

from solution import parse_ini


def test_basic_sections():
    text = "; comment\n[server]\nHost = example.com\nport=8080\n\n[empty]\n"
    assert parse_ini(text) == {"server": {"host": "example.com", "port": "8080"}, "empty": {}}


def test_empty_and_comment_only():
    assert parse_ini("") == {}
    assert parse_ini("\n  \n# just a comment\n; another\n") == {}


def test_values_with_equals_and_semicolons():
    result = parse_ini("[db]\nurl = postgres://u:p@h/db?a=1&b=2\nnote = a ; b # c\nempty =\n")
    assert result == {"db": {"url": "postgres://u:p@h/db?a=1&b=2", "note": "a ; b # c", "empty": ""}}


def test_section_merge_and_override():
    text = "[a]\nx = 1\ny = 2\n[b]\nz = 3\n[a]\nx = 10\n"
    assert parse_ini(text) == {"a": {"x": "10", "y": "2"}, "b": {"z": "3"}}


def test_section_names_case_sensitive_keys_lowercased():
    result = parse_ini("[Main]\nKEY = V\n[main]\nKey = w\n")
    assert result == {"Main": {"key": "V"}, "main": {"key": "w"}}


def test_whitespace_handling():
    result = parse_ini("   [  spaced name  ]  \n\t  key   =   value with  spaces  \r\n")
    assert result == {"spaced name": {"key": "value with  spaces"}}


def test_unicode():
    assert parse_ini("[café]\nnäme = 日本\n") == {"café": {"näme": "日本"}}


def test_key_outside_section():
    with pytest.raises(ValueError, match="line 2"):
        parse_ini("\nkey = value\n[s]\n")


def test_line_without_equals():
    with pytest.raises(ValueError, match="line 3"):
        parse_ini("[s]\na = 1\njust text\n")


def test_empty_key_and_section():
    with pytest.raises(ValueError, match="line 2"):
        parse_ini("[s]\n = value\n")
    with pytest.raises(ValueError, match="line 1"):
        parse_ini("[  ]\n")


def test_many_keys():
    text = "[big]\n" + "\n".join(f"k{i} = {i}" for i in range(5000))
    result = parse_ini(text)
    assert len(result["big"]) == 5000
    assert result["big"]["k4999"] == "4999"
