import pytest

from cachekit.base import BaseCache
from cachekit.lfu import LFUCache


def test_is_a_base_cache_and_validates_capacity():
    assert issubclass(LFUCache, BaseCache)
    with pytest.raises(ValueError):
        LFUCache(0)


def test_evicts_least_frequent():
    cache = LFUCache(3)
    for key in "abc":
        cache.put(key, key.upper())
    cache.get("a")
    cache.get("a")
    cache.get("c")
    cache.put("d", "D")
    assert "b" not in cache
    assert [key in cache for key in "acd"] == [True, True, True]


def test_ties_broken_by_recency():
    cache = LFUCache(3)
    cache.put("x", 1)
    cache.put("y", 2)
    cache.put("z", 3)
    cache.get("x")
    cache.get("y")
    cache.get("z")
    cache.get("x")
    cache.get("y")
    cache.put("w", 4)
    assert "z" not in cache
    cache.put("v", 5)
    assert "w" not in cache
    assert cache.frequency("x") == 3


def test_overwrite_counts_as_use():
    cache = LFUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 10)
    assert cache.frequency("a") == 2
    cache.put("c", 3)
    assert "b" not in cache
    assert cache.get("a") == 10


def test_membership_does_not_count_and_frequency_of_missing():
    cache = LFUCache(2)
    cache.put("a", 1)
    assert "a" in cache
    assert cache.frequency("a") == 1
    assert cache.frequency("nope") == 0


def test_delete_and_reinsert_resets_count():
    cache = LFUCache(2)
    cache.put("a", 1)
    for _ in range(5):
        cache.get("a")
    assert cache.delete("a") is True
    assert cache.frequency("a") == 0
    cache.put("a", 2)
    assert cache.frequency("a") == 1
    cache.put("b", 3)
    cache.get("b")
    cache.put("c", 4)
    assert "a" not in cache
    assert cache.delete("zzz") is False


def test_stats_from_base_class():
    cache = LFUCache(1)
    cache.put(1, "one")
    cache.get(1)
    cache.get(2)
    cache.put(2, "two")
    cache.put(3, "three")
    assert (cache.stats.hits, cache.stats.misses, cache.stats.evictions) == (1, 1, 2)
    assert len(cache) == 1


def test_many_operations():
    cache = LFUCache(50)
    for i in range(2000):
        cache.put(i % 120, i)
        if i % 3 == 0:
            cache.get(i % 7)
    assert len(cache) == 50
    assert all(k in cache for k in range(7))
