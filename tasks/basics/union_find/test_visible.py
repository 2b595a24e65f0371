from solution import UnionFind


def test_example():
    uf = UnionFind(5)
    assert [uf.union(0, 1), uf.union(3, 4), uf.union(1, 0)] == [True, True, False]
    assert uf.num_components == 3
    assert uf.size(1) == 2
    assert uf.groups() == [[0, 1], [2], [3, 4]]


def test_connected():
    uf = UnionFind(3)
    uf.union(0, 2)
    assert uf.connected(2, 0)
    assert not uf.connected(0, 1)
