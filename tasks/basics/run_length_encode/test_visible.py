from solution import rle_encode


def test_mixed_runs():
    assert rle_encode("aaabccdddd") == "3ab2c4d"


def test_no_repeats():
    assert rle_encode("abc") == "abc"
