from solution import Trie


def test_insert_and_prefix_listing():
    t = Trie()
    assert [t.insert("car"), t.insert("cart"), t.insert("care"), t.insert("car")] == [True, True, True, False]
    assert t.words_with_prefix("car") == ["car", "care", "cart"]


def test_prefix_is_not_a_word():
    t = Trie()
    t.insert("car")
    assert "ca" not in t
    assert t.has_prefix("ca")
