def matrix_multiply(a: list[list[float]], b: list[list[float]]) -> list[list[float]]:
    """Return the matrix product a @ b of two list-of-rows matrices."""

    def width(matrix: list[list[float]], name: str) -> int:
        if not matrix or not matrix[0]:
            raise ValueError(f"matrix {name} is empty")
        columns = len(matrix[0])
        if any(len(row) != columns for row in matrix):
            raise ValueError(f"matrix {name} is ragged")
        return columns

    inner = width(a, "a")
    width(b, "b")
    if inner != len(b):
        raise ValueError(f"shape mismatch: a has {inner} columns but b has {len(b)} rows")
    columns_of_b = list(zip(*b, strict=True))
    return [[sum(x * y for x, y in zip(row, column, strict=True)) for column in columns_of_b] for row in a]
