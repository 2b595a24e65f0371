class UnionFind:
    """Disjoint-set forest over the integers 0..n-1."""
