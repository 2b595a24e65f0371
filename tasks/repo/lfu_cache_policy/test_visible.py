from cachekit.lfu import LFUCache


def test_example():
    cache = LFUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.get("a")
    cache.put("c", 3)
    assert "b" not in cache
    assert cache.frequency("a") == 2
    assert cache.stats.evictions == 1


def test_get_returns_values():
    cache = LFUCache(3)
    cache.put("k", "v")
    assert cache.get("k") == "v"
    assert cache.get("missing", 0) == 0
