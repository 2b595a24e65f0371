from minigraph.disjoint import DisjointSet
from minigraph.errors import GraphError
from minigraph.graph import Edge, Graph


def minimum_spanning_forest(graph: Graph) -> list[Edge]:
    """Return the edges of a minimum spanning forest of the undirected `graph` (Kruskal)."""
