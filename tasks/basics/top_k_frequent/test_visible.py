from solution import top_k_frequent


def test_example():
    assert top_k_frequent(["i", "love", "leetcode", "i", "love", "coding"], 2) == ["i", "love"]


def test_ties_alphabetical():
    assert top_k_frequent(["b", "a", "c", "b", "a"], 3) == ["a", "b", "c"]
