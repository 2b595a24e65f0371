import pytest

from solution import top_k_frequent


def test_example():
    assert top_k_frequent(["i", "love", "leetcode", "i", "love", "coding"], 2) == ["i", "love"]


def test_ties_alphabetical():
    words = ["the", "day", "is", "sunny", "the", "the", "the", "sunny", "is", "is"]
    assert top_k_frequent(words, 4) == ["the", "is", "sunny", "day"]


def test_case_sensitive_ordering():
    assert top_k_frequent(["apple", "Apple", "banana", "apple", "Apple", "banana"], 3) == [
        "Apple",
        "apple",
        "banana",
    ]


def test_k_larger_than_distinct():
    assert top_k_frequent(["x", "y", "x"], 10) == ["x", "y"]


def test_k_zero_and_empty_input():
    assert top_k_frequent(["a", "b"], 0) == []
    assert top_k_frequent([], 3) == []


def test_negative_k():
    with pytest.raises(ValueError):
        top_k_frequent(["a"], -1)


def test_unicode_words():
    assert top_k_frequent(["é", "e", "é", "日本", "日本", "日本"], 2) == ["日本", "é"]


def test_large_input():
    words = [f"w{i % 1000:03d}" for i in range(100000)] + ["w999"] * 5 + ["w500"] * 5
    assert top_k_frequent(words, 3) == ["w500", "w999", "w000"]
