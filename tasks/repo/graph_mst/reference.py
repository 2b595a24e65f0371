from minigraph.disjoint import DisjointSet
from minigraph.errors import GraphError
from minigraph.graph import Edge, Graph


def minimum_spanning_forest(graph: Graph) -> list[Edge]:
    """Return the edges of a minimum spanning forest of the undirected `graph` (Kruskal)."""
    if graph.directed:
        raise GraphError("minimum spanning forests need an undirected graph")
    components = DisjointSet(graph.nodes())
    accepted: list[Edge] = []
    for edge in sorted(graph.edges(), key=Edge.sort_key):
        if components.union(edge.u, edge.v):
            accepted.append(edge)
    return accepted
