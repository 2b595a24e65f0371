import pytest

from solution import slugify


def test_basic():
    assert slugify("Hello, World!") == "hello-world"


def test_accents_and_spaces():
    assert slugify("  Crème brûlée à Paris  ") == "creme-brulee-a-paris"


def test_runs_collapse_and_underscores():
    assert slugify("a  --  b__c...d") == "a-b-c-d"
    assert slugify("don't stop") == "don-t-stop"


def test_non_latin_dropped():
    assert slugify("日本語") == ""
    assert slugify("Tokyo 東京 2020") == "tokyo-2020"


def test_empty():
    assert slugify("") == ""
    assert slugify("!!!") == ""


def test_max_length_strips_trailing_hyphen():
    assert slugify("hello world", max_length=6) == "hello"
    assert slugify("hello world", max_length=7) == "hello-w"
    assert slugify("hello world", max_length=100) == "hello-world"


def test_max_length_invalid():
    with pytest.raises(ValueError):
        slugify("abc", max_length=0)


def test_compatibility_characters():
    assert slugify("ﬁve ① Ⅻ") == "five-1-xii"


def test_digits_kept():
    assert slugify("Version 2.0.1 (beta)") == "version-2-0-1-beta"
