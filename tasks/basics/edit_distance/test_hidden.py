from solution import edit_distance


def test_classic_levenshtein():
    assert edit_distance("kitten", "sitting") == 3
    assert edit_distance("flaw", "lawn") == 2


def test_empty_strings():
    assert edit_distance("", "") == 0
    assert edit_distance("", "abc") == 3
    assert edit_distance("abcd", "") == 4


def test_identical():
    assert edit_distance("same", "same") == 0


def test_adjacent_transposition():
    assert edit_distance("abcd", "acbd") == 1
    assert edit_distance("ab", "ba") == 1
    assert edit_distance("teh", "the") == 1


def test_osa_restriction():
    assert edit_distance("ca", "abc") == 3


def test_case_sensitive_and_unicode():
    assert edit_distance("Apple", "apple") == 1
    assert edit_distance("café", "cafe") == 1
    assert edit_distance("日本語", "本日語") == 1


def test_symmetry():
    pairs = [("intention", "execution"), ("abc", "yabd"), ("a cat", "an act")]
    for a, b in pairs:
        assert edit_distance(a, b) == edit_distance(b, a)
    assert edit_distance("intention", "execution") == 5


def test_longer_strings():
    a = "ab" * 200
    b = "ba" * 200
    assert edit_distance(a, b) == 2
    assert edit_distance("x" * 300, "y" * 300) == 300
    assert edit_distance("a" * 250, "a" * 400) == 150
