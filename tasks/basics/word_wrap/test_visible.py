from solution import wrap_text


def test_simple_wrap():
    assert wrap_text("The quick brown fox", 10) == ["The quick", "brown fox"]


def test_long_word_is_broken():
    assert wrap_text("abcdefghij k", 4) == ["abcd", "efgh", "ij k"]
