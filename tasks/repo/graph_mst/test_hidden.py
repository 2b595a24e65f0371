import itertools
import random

import pytest

from minigraph.disjoint import DisjointSet
from minigraph.errors import GraphError
from minigraph.graph import Edge, Graph
from minigraph.mst import minimum_spanning_forest


def test_triangle_tie_uses_canonical_order():
    g = Graph()
    g.add_edge("a", "b", 1)
    g.add_edge("b", "c", 2)
    g.add_edge("a", "c", 2)
    assert minimum_spanning_forest(g) == [Edge("a", "b", 1), Edge("a", "c", 2)]


def test_ties_compare_endpoints_as_text():
    g = Graph()
    g.add_edge(10, 2, 5)
    g.add_edge(2, 3, 5)
    g.add_edge(3, 10, 5)
    assert minimum_spanning_forest(g) == [Edge(10, 2, 5), Edge(10, 3, 5)]


def test_edges_keep_graph_orientation():
    g = Graph()
    g.add_node("z")
    g.add_edge("a", "z", 3)
    (edge,) = minimum_spanning_forest(g)
    assert edge == Edge("z", "a", 3)


def test_directed_graph_rejected():
    g = Graph(directed=True)
    g.add_edge(1, 2)
    with pytest.raises(GraphError):
        minimum_spanning_forest(g)


def test_forest_for_disconnected_graph():
    g = Graph()
    g.add_edge("a", "b", 4)
    g.add_edge("c", "d", 1)
    g.add_edge("d", "e", 7)
    g.add_edge("c", "e", 2)
    g.add_node("lonely")
    assert minimum_spanning_forest(g) == [Edge("c", "d", 1), Edge("c", "e", 2), Edge("a", "b", 4)]


def test_classic_graph_total_weight():
    g = Graph()
    for u, v, w in [
        ("A", "B", 7),
        ("A", "D", 5),
        ("B", "C", 8),
        ("B", "D", 9),
        ("B", "E", 7),
        ("C", "E", 5),
        ("D", "E", 15),
        ("D", "F", 6),
        ("E", "F", 8),
        ("E", "G", 9),
        ("F", "G", 11),
    ]:
        g.add_edge(u, v, w)
    forest = minimum_spanning_forest(g)
    assert len(forest) == 6
    assert sum(edge.weight for edge in forest) == 39
    assert forest[:2] == [Edge("A", "D", 5), Edge("C", "E", 5)]


def brute_force_weight(nodes, edges):
    best = None
    for combo in itertools.combinations(edges, len(nodes) - 1):
        sets = DisjointSet(nodes)
        if all(sets.union(e.u, e.v) for e in combo):
            total = sum(e.weight for e in combo)
            best = total if best is None else min(best, total)
    return best


def test_random_graphs_against_bruteforce():
    rng = random.Random(17)
    for _ in range(15):
        g = Graph()
        nodes = list(range(6))
        for i in range(1, 6):
            g.add_edge(rng.randrange(i), i, rng.randrange(1, 10))
        for _ in range(5):
            u, v = rng.sample(nodes, 2)
            g.add_edge(u, v, rng.randrange(1, 10))
        forest = minimum_spanning_forest(g)
        assert len(forest) == 5
        assert sum(e.weight for e in forest) == brute_force_weight(nodes, g.edges())
        assert all(edge in g.edges() for edge in forest)


def test_large_grid():
    g = Graph()
    n = 60
    for r in range(n):
        for c in range(n):
            if c + 1 < n:
                g.add_edge((r, c), (r, c + 1), 1 + (r * c) % 3)
            if r + 1 < n:
                g.add_edge((r, c), (r + 1, c), 2)
    forest = minimum_spanning_forest(g)
    assert len(forest) == n * n - 1
