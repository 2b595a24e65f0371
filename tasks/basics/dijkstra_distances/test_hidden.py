import random

import pytest

from solution import shortest_distances


def test_example_unreachable_omitted():
    graph = {"a": [("b", 1), ("c", 4)], "b": [("c", 2)], "d": [("a", 1)]}
    assert shortest_distances(graph, "a") == {"a": 0, "b": 1, "c": 3}


def test_source_not_in_graph():
    assert shortest_distances({"a": [("b", 1)]}, "zzz") == {"zzz": 0}


def test_directed_edges():
    graph = {1: [(2, 5)], 2: []}
    assert shortest_distances(graph, 2) == {2: 0}


def test_zero_weights_and_parallel_edges():
    graph = {"s": [("t", 10), ("t", 3), ("u", 0)], "u": [("t", 0)]}
    assert shortest_distances(graph, "s") == {"s": 0, "t": 0, "u": 0}


def test_float_weights():
    graph = {"a": [("b", 0.5), ("c", 2.0)], "b": [("c", 0.25)]}
    result = shortest_distances(graph, "a")
    assert result["c"] == pytest.approx(0.75)


def test_mixed_incomparable_nodes():
    graph = {"start": [(1, 2), ((0, 0), 2)], 1: [("end", 1)], (0, 0): [("end", 1), (None, 5)]}
    assert shortest_distances(graph, "start") == {"start": 0, 1: 2, (0, 0): 2, "end": 3, None: 7}


def test_negative_weight_anywhere_rejected():
    with pytest.raises(ValueError):
        shortest_distances({"a": [("b", 1)], "x": [("y", -1)]}, "a")


def test_cycle_graph():
    graph = {0: [(1, 1)], 1: [(2, 1)], 2: [(0, 1), (3, 10)], 3: []}
    assert shortest_distances(graph, 1) == {1: 0, 2: 1, 0: 2, 3: 11}


def test_large_random_graph_against_bellman_ford():
    rng = random.Random(3)
    n = 300
    graph = {i: [(rng.randrange(n), rng.randrange(1, 50)) for _ in range(6)] for i in range(n)}
    expected = {0: 0}
    for _ in range(n):
        changed = False
        for u, edges in graph.items():
            if u not in expected:
                continue
            for v, w in edges:
                if v not in expected or expected[u] + w < expected[v]:
                    expected[v] = expected[u] + w
                    changed = True
        if not changed:
            break
    assert shortest_distances(graph, 0) == expected


def test_big_line_graph_is_fast():
    n = 50000
    graph = {i: [(i + 1, 1), (i + 2, 3)] for i in range(n)}
    result = shortest_distances(graph, 0)
    assert result[n] == n
    assert len(result) == n + 2
