from solution import shortest_distances


def test_example():
    graph = {"a": [("b", 1), ("c", 4)], "b": [("c", 2)], "d": [("a", 1)]}
    assert shortest_distances(graph, "a") == {"a": 0, "b": 1, "c": 3}


def test_single_node():
    assert shortest_distances({"x": []}, "x") == {"x": 0}
