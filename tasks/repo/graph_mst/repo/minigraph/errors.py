class GraphError(Exception):
    """Raised for operations that do not make sense on a given graph."""
