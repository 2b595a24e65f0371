"""Breadth-first traversal helpers."""

from collections import deque
from collections.abc import Hashable

from minigraph.graph import Graph


def bfs_order(graph: Graph, start: Hashable) -> list[Hashable]:
    seen = {start}
    order = []
    queue = deque([start])
    while queue:
        node = queue.popleft()
        order.append(node)
        for neighbor in graph.neighbors(node):
            if neighbor not in seen:
                seen.add(neighbor)
                queue.append(neighbor)
    return order


def connected_components(graph: Graph) -> list[list[Hashable]]:
    seen: set = set()
    components = []
    for node in graph.nodes():
        if node not in seen:
            component = bfs_order(graph, node)
            seen.update(component)
            components.append(component)
    return components
