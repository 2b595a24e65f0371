from solution import matrix_multiply


def test_square():
    assert matrix_multiply([[1, 2], [3, 4]], [[5, 6], [7, 8]]) == [[19, 22], [43, 50]]


def test_row_times_column():
    assert matrix_multiply([[1, 2, 3]], [[1], [1], [1]]) == [[6]]
