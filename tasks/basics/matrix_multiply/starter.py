def matrix_multiply(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """Return the matrix product a @ b of two list-of-rows matrices."""
