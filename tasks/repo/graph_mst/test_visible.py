from minigraph.graph import Edge, Graph
from minigraph.mst import minimum_spanning_forest


def test_triangle_tie():
    g = Graph()
    g.add_edge("a", "b", 1)
    g.add_edge("b", "c", 2)
    g.add_edge("a", "c", 2)
    assert minimum_spanning_forest(g) == [Edge("a", "b", 1), Edge("a", "c", 2)]


def test_empty_graph():
    assert minimum_spanning_forest(Graph()) == []
