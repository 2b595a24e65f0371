from solution import longest_increasing_subsequence


def test_classic_length():
    result = longest_increasing_subsequence([10, 9, 2, 5, 3, 7, 101, 18])
    assert len(result) == 4
    assert result in ([2, 3, 7, 101], [2, 3, 7, 18], [2, 5, 7, 101], [2, 5, 7, 18])


def test_all_equal():
    assert longest_increasing_subsequence([7, 7, 7]) == [7]
