"""Weighted graphs stored as adjacency dictionaries."""

from collections.abc import Hashable
from typing import NamedTuple

from minigraph.errors import GraphError


class Edge(NamedTuple):
    u: Hashable
    v: Hashable
    weight: float

    def sort_key(self) -> tuple:
        """Canonical edge order: by weight, then by the text of both endpoints."""
        return (self.weight, str(self.u), str(self.v))


class Graph:
    def __init__(self, directed: bool = False) -> None:
        self.directed = directed
        self._adjacency: dict[Hashable, dict[Hashable, float]] = {}

    def add_node(self, node: Hashable) -> None:
        self._adjacency.setdefault(node, {})

    def add_edge(self, u: Hashable, v: Hashable, weight: float = 1.0) -> None:
        """Add (or re-weight) the edge u-v; self-loops are rejected."""
        if u == v:
            raise GraphError(f"self-loop on {u!r}")
        self.add_node(u)
        self.add_node(v)
        self._adjacency[u][v] = weight
        if not self.directed:
            self._adjacency[v][u] = weight

    def nodes(self) -> list[Hashable]:
        """Nodes in insertion order."""
        return list(self._adjacency)

    def neighbors(self, node: Hashable) -> dict[Hashable, float]:
        return dict(self._adjacency[node])

    def edges(self) -> list[Edge]:
        """Every edge once. Undirected edges start at the endpoint that was added first."""
        order = {node: index for index, node in enumerate(self._adjacency)}
        found = []
        for u, targets in self._adjacency.items():
            for v, weight in targets.items():
                if self.directed or order[u] < order[v]:
                    found.append(Edge(u, v, weight))
        return found

    def __contains__(self, node: Hashable) -> bool:
        return node in self._adjacency

    def __len__(self) -> int:
        return len(self._adjacency)
