from solution import flatten


def test_full_flatten():
    assert flatten([1, [2, (3, [4])], "ab", []]) == [1, 2, 3, 4, "ab"]


def test_depth_one():
    assert flatten([1, [2, [3, [4]]]], depth=1) == [1, 2, [3, [4]]]
