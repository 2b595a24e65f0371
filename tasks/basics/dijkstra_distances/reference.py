import heapq
import itertools


def shortest_distances(graph: dict, source) -> dict:
    """Return shortest path lengths from `source` to every reachable node."""
    for edges in graph.values():
        for _, weight in edges:
            if weight < 0:
                raise ValueError(f"negative edge weight: {weight}")
    distances: dict = {source: 0}
    done: set = set()
    tie = itertools.count()
    heap = [(0, next(tie), source)]
    while heap:
        distance, _, node = heapq.heappop(heap)
        if node in done:
            continue
        done.add(node)
        for neighbor, weight in graph.get(node, ()):
            candidate = distance + weight
            if neighbor not in distances or candidate < distances[neighbor]:
                distances[neighbor] = candidate
                heapq.heappush(heap, (candidate, next(tie), neighbor))
    return distances
