import heapq


def topological_sort(dependencies: dict[str, list[str]]) -> list[str]:
    """Order nodes so that each comes after its prerequisites; smallest ready node first."""
    prerequisites: dict[str, set[str]] = {}
    for node, required in dependencies.items():
        prerequisites.setdefault(node, set()).update(required)
        for other in required:
            prerequisites.setdefault(other, set())
    dependents: dict[str, list[str]] = {node: [] for node in prerequisites}
    for node, required in prerequisites.items():
        for other in required:
            dependents[other].append(node)
    remaining = {node: len(required) for node, required in prerequisites.items()}
    ready = [node for node, count in remaining.items() if count == 0]
    heapq.heapify(ready)
    order: list[str] = []
    while ready:
        node = heapq.heappop(ready)
        order.append(node)
        for dependent in dependents[node]:
            remaining[dependent] -= 1
            if remaining[dependent] == 0:
                heapq.heappush(ready, dependent)
    if len(order) != len(prerequisites):
        stuck = sorted(node for node, count in remaining.items() if count > 0)
        raise ValueError(f"dependency cycle among: {', '.join(stuck)}")
    return order
