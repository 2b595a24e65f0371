import pytest

from solution import matrix_multiply


def test_square():
    assert matrix_multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]


def test_rectangular_shapes():
    a = [[1, 0, 2], [0, 1, 0]]
    b = [[1, 2], [3, 4], [5, 6]]
    assert matrix_multiply(a, b) == [[11, 14], [3, 4]]
    assert matrix_multiply([[2], [3]], [[4, 5]]) == [[8, 10], [12, 15]]


def test_identity_and_integer_results():
    m = [[2, -1], [0, 7]]
    identity = [[1, 0], [0, 1]]
    result = matrix_multiply(identity, m)
    assert result == m
    assert all(isinstance(x, int) for row in result for x in row)


def test_floats():
    result = matrix_multiply([[0.1, 0.2]], [[0.3], [0.4]])
    assert result[0][0] == pytest.approx(0.11)


def test_returns_new_lists_and_no_mutation():
    a = [[1, 2], [3, 4]]
    b = [[1, 0], [0, 1]]
    result = matrix_multiply(a, b)
    result[0][0] = 99
    assert a == [[1, 2], [3, 4]]
    assert b == [[1, 0], [0, 1]]


def test_shape_mismatch():
    with pytest.raises(ValueError):
        matrix_multiply([[1, 2]], [[1, 2]])


def test_empty_and_ragged():
    with pytest.raises(ValueError):
        matrix_multiply([], [[1]])
    with pytest.raises(ValueError):
        matrix_multiply([[]], [[1]])
    with pytest.raises(ValueError):
        matrix_multiply([[1, 2], [3]], [[1], [2]])
    with pytest.raises(ValueError):
        matrix_multiply([[1, 2]], [[1], [2, 3]])


def test_larger_matrix():
    n = 60
    a = [[(i + j) % 7 for j in range(n)] for i in range(n)]
    b = [[(i * j) % 5 for j in range(n)] for i in range(n)]
    result = matrix_multiply(a, b)
    assert len(result) == n and all(len(row) == n for row in result)
    assert result[17][23] == sum(a[17][k] * b[k][23] for k in range(n))
