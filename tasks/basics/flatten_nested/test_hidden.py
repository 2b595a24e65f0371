import pytest

from solution import flatten


def test_full_flatten_mixed():
    assert flatten([1, [2, (3, [4])], "ab", []]) == [1, 2, 3, 4, "ab"]


def test_atoms_not_expanded():
    d = {"k": [1]}
    s = {1, 2}
    result = flatten([["text", b"bytes"], d, s, range(3), (None,)])
    assert result == ["text", b"bytes", d, s, range(3), None]
    assert result[2] is d


def test_depth_levels():
    nested = [1, [2, [3, [4, [5]]]]]
    assert flatten(nested, depth=0) == [1, [2, [3, [4, [5]]]]]
    assert flatten(nested, depth=2) == [1, 2, 3, [4, [5]]]
    assert flatten(nested, depth=10) == [1, 2, 3, 4, 5]


def test_depth_zero_returns_new_list():
    data = [[1], 2]
    result = flatten(data, depth=0)
    assert result == data
    assert result is not data


def test_empty_inputs():
    assert flatten([]) == []
    assert flatten(()) == []
    assert flatten([[], [[]], ((),)]) == []


def test_tuple_input_and_subclasses():
    class MyList(list):
        pass

    assert flatten((1, MyList([2, MyList([3])]))) == [1, 2, 3]


def test_does_not_mutate():
    data = [1, [2, [3]]]
    flatten(data)
    assert data == [1, [2, [3]]]


def test_errors():
    with pytest.raises(TypeError):
        flatten("abc")
    with pytest.raises(TypeError):
        flatten({1, 2})
    with pytest.raises(ValueError):
        flatten([1], depth=-1)


def test_very_deep_nesting():
    nested = ["bottom"]
    for i in range(10000):
        nested = [i, nested]
    result = flatten(nested)
    assert len(result) == 10001
    assert result[0] == 9999
    assert result[-1] == "bottom"


def test_wide_input():
    data = [[i, [i + 1]] for i in range(0, 100000, 2)]
    assert flatten(data) == list(range(100000))
