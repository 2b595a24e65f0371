import heapq
import itertools


def shortest_distances(graph: dict, source) -> dict:
    """Return shortest path lengths from `source` to every reachable node."""
