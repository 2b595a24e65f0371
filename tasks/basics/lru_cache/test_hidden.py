import pytest

from solution import LRUCache


def test_basic_get_put():
    cache = LRUCache(3)
    cache.put("x", 10)
    cache.put("y", 20)
    assert cache.get("x") == 10
    assert cache.get("y") == 20
    assert len(cache) == 2


def test_evicts_least_recently_used():
    cache = LRUCache(2)
    cache.put(1, "one")
    cache.put(2, "two")
    cache.get(1)
    cache.put(3, "three")
    assert 2 not in cache
    assert cache.get(2) is None
    assert cache.keys() == [1, 3]


def test_update_refreshes_recency_without_growing():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    cache.put("a", 100)
    assert len(cache) == 2
    cache.put("c", 3)
    assert cache.keys() == ["a", "c"]
    assert cache.get("a") == 100


def test_contains_and_keys_do_not_touch_order():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert "a" in cache
    assert cache.keys() == ["a", "b"]
    cache.put("c", 3)
    assert "a" not in cache
    assert cache.keys() == ["b", "c"]


def test_missing_get_changes_nothing():
    cache = LRUCache(2)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.get("zzz", "dflt") == "dflt"
    assert cache.keys() == ["a", "b"]
    assert len(cache) == 2


def test_capacity_one():
    cache = LRUCache(1)
    cache.put("a", 1)
    cache.put("b", 2)
    assert cache.keys() == ["b"]
    assert cache.get("a") is None


def test_falsy_values_stored():
    cache = LRUCache(3)
    cache.put("zero", 0)
    cache.put("none", None)
    assert cache.get("zero", "missing") == 0
    assert cache.get("none", "missing") is None
    assert "none" in cache


def test_invalid_capacity():
    with pytest.raises(ValueError):
        LRUCache(0)
    with pytest.raises(ValueError):
        LRUCache(-5)


def test_many_operations():
    cache = LRUCache(1000)
    for i in range(100000):
        cache.put(i, i * i)
        if i % 3 == 0:
            cache.get(i // 2)
    assert len(cache) == 1000
    assert cache.get(99999) == 99999 * 99999
    assert cache.get(0) is None
