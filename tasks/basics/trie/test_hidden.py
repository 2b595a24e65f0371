import random

from solution import Trie


def test_insert_contains_len():
    t = Trie()
    assert t.insert("apple") is True
    assert t.insert("app") is True
    assert t.insert("apple") is False
    assert len(t) == 2
    assert "apple" in t
    assert "app" in t
    assert "ap" not in t
    assert "apples" not in t


def test_empty_trie():
    t = Trie()
    assert len(t) == 0
    assert "" not in t
    assert t.has_prefix("") is False
    assert t.words_with_prefix("") == []
    assert t.remove("x") is False


def test_empty_string_word():
    t = Trie()
    assert t.insert("") is True
    assert "" in t
    assert t.has_prefix("")
    assert t.words_with_prefix("") == [""]
    assert t.remove("") is True
    assert len(t) == 0


def test_words_with_prefix_sorted():
    t = Trie()
    for w in ["banana", "band", "bandana", "ban", "apple", "Band"]:
        t.insert(w)
    assert t.words_with_prefix("ban") == ["ban", "banana", "band", "bandana"]
    assert t.words_with_prefix("") == ["Band", "apple", "ban", "banana", "band", "bandana"]
    assert t.words_with_prefix("c") == []
    assert t.words_with_prefix("bandanas") == []


def test_remove_keeps_shared_prefixes():
    t = Trie()
    for w in ["car", "cart", "care"]:
        t.insert(w)
    assert t.remove("car") is True
    assert "car" not in t
    assert t.has_prefix("car")
    assert t.words_with_prefix("ca") == ["care", "cart"]
    assert t.remove("car") is False
    assert t.remove("ca") is False
    assert t.remove("cart") is True
    assert t.remove("care") is True
    assert not t.has_prefix("c")
    assert len(t) == 0


def test_remove_longer_word_keeps_shorter():
    t = Trie()
    t.insert("in")
    t.insert("inside")
    assert t.remove("inside") is True
    assert "in" in t
    assert t.has_prefix("in")
    assert not t.has_prefix("ins")


def test_unicode_words():
    t = Trie()
    for w in ["日本", "日本語", "日曜日", "éclair", "e"]:
        t.insert(w)
    assert t.words_with_prefix("日") == ["日曜日", "日本", "日本語"]
    assert "é" not in t
    assert t.has_prefix("é")


def test_many_words():
    rng = random.Random(5)
    words = {"".join(rng.choice("abcde") for _ in range(rng.randint(1, 8))) for _ in range(20000)}
    t = Trie()
    for w in words:
        assert t.insert(w) is True
    assert len(t) == len(words)
    assert t.words_with_prefix("ab") == sorted(w for w in words if w.startswith("ab"))
    for w in list(words)[:5000]:
        assert t.remove(w) is True
    assert len(t) == len(words) - 5000
