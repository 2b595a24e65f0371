import random

import pytest

from solution import UnionFind


def test_initial_state():
    uf = UnionFind(4)
    assert uf.num_components == 4
    assert [uf.find(i) for i in range(4)] == [0, 1, 2, 3]
    assert all(uf.size(i) == 1 for i in range(4))
    assert uf.groups() == [[0], [1], [2], [3]]


def test_union_return_values_and_counts():
    uf = UnionFind(6)
    assert uf.union(0, 1) is True
    assert uf.union(2, 3) is True
    assert uf.union(1, 3) is True
    assert uf.union(0, 2) is False
    assert uf.union(4, 4) is False
    assert uf.num_components == 3
    assert uf.size(3) == 4
    assert uf.connected(0, 3)
    assert not uf.connected(0, 5)


def test_groups_sorted():
    uf = UnionFind(7)
    uf.union(6, 2)
    uf.union(5, 0)
    uf.union(3, 6)
    assert uf.groups() == [[0, 5], [1], [2, 3, 6], [4]]


def test_num_components_is_property():
    uf = UnionFind(2)
    uf.union(0, 1)
    assert uf.num_components == 1


def test_empty():
    uf = UnionFind(0)
    assert uf.num_components == 0
    assert uf.groups() == []
    with pytest.raises(IndexError):
        uf.find(0)


def test_out_of_range_and_negative_n():
    uf = UnionFind(3)
    for call in (
        lambda: uf.find(3),
        lambda: uf.find(-1),
        lambda: uf.union(0, 5),
        lambda: uf.size(-2),
        lambda: uf.connected(7, 0),
    ):
        with pytest.raises(IndexError):
            call()
    with pytest.raises(ValueError):
        UnionFind(-1)


def test_long_chain_no_recursion_error():
    n = 100000
    uf = UnionFind(n)
    for i in range(n - 1):
        uf.union(i, i + 1)
    assert uf.num_components == 1
    assert uf.size(0) == n
    assert uf.connected(0, n - 1)


def test_randomised_against_naive():
    rng = random.Random(42)
    n = 300
    uf = UnionFind(n)
    label = list(range(n))
    for _ in range(400):
        a, b = rng.randrange(n), rng.randrange(n)
        merged = label[a] != label[b]
        assert uf.union(a, b) is merged
        if merged:
            old, new = label[b], label[a]
            label = [new if x == old else x for x in label]
    for _ in range(1000):
        a, b = rng.randrange(n), rng.randrange(n)
        assert uf.connected(a, b) == (label[a] == label[b])
    assert uf.num_components == len(set(label))
