def spiral_order(matrix: list[list]) -> list:
    """Return the elements of `matrix` in clockwise spiral order from the top-left corner."""
    if any(len(row) != len(matrix[0]) for row in matrix):
        raise ValueError("matrix rows must all have the same length")
    result: list = []
    if not matrix or not matrix[0]:
        return result
    top, bottom = 0, len(matrix) - 1
    left, right = 0, len(matrix[0]) - 1
    while top <= bottom and left <= right:
        result.extend(matrix[top][col] for col in range(left, right + 1))
        result.extend(matrix[row][right] for row in range(top + 1, bottom + 1))
        if top < bottom:
            result.extend(matrix[bottom][col] for col in range(right - 1, left - 1, -1))
        if left < right:
            result.extend(matrix[row][left] for row in range(bottom - 1, top, -1))
        top, bottom, left, right = top + 1, bottom - 1, left + 1, right - 1
    return result
