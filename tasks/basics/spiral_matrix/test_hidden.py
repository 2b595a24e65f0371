import pytest

from solution import spiral_order


def test_square():
    assert spiral_order([[1, 2, 3], [4, 5, 6], [7, 8, 9]]) == [1, 2, 3, 6, 9, 8, 7, 4, 5]


def test_rectangles():
    assert spiral_order([[1, 2, 3, 4], [5, 6, 7, 8], [9, 10, 11, 12]]) == [
        1,
        2,
        3,
        4,
        8,
        12,
        11,
        10,
        9,
        5,
        6,
        7,
    ]
    assert spiral_order([[1, 2], [3, 4], [5, 6], [7, 8]]) == [1, 2, 4, 6, 8, 7, 5, 3]


def test_single_row_and_column():
    assert spiral_order([[1, 2, 3]]) == [1, 2, 3]
    assert spiral_order([[1], [2], [3]]) == [1, 2, 3]
    assert spiral_order([["only"]]) == ["only"]


def test_empty():
    assert spiral_order([]) == []
    assert spiral_order([[]]) == []
    assert spiral_order([[], []]) == []


def test_ragged_raises():
    with pytest.raises(ValueError):
        spiral_order([[1, 2], [3]])


def test_does_not_mutate():
    matrix = [[1, 2], [3, 4]]
    spiral_order(matrix)
    assert matrix == [[1, 2], [3, 4]]


def test_large_matrix_visits_each_once():
    rows, cols = 301, 257
    matrix = [[r * cols + c for c in range(cols)] for r in range(rows)]
    result = spiral_order(matrix)
    assert len(result) == rows * cols
    assert sorted(result) == list(range(rows * cols))
    assert result[:cols] == list(range(cols))
    assert result[cols] == 2 * cols - 1
