from solution import LRUCache


def test_eviction_order():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("a") == 1
    cache.put("c", 3)
    assert "b" not in cache
    assert cache.keys() == ["a", "c"]


def test_missing_key_default():
    cache = LRUCache(1)
    assert cache.get("nope") is None
    assert cache.get("nope", 42) == 42
