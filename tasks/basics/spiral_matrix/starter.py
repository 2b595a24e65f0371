def spiral_order(matrix: list[list]) -> list:
    """Return the elements of `matrix` in clockwise spiral order from the top-left corner."""
