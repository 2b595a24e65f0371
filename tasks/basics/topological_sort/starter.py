import heapq


def topological_sort(dependencies: dict[str, list[str]]) -> list[str]:
    """Order nodes so that each comes after its prerequisites; smallest ready node first."""
