import pytest

from solution import topological_sort


def test_empty():
    assert topological_sort({}) == []


def test_independent_nodes_sorted():
    assert topological_sort({"c": [], "a": [], "b": []}) == ["a", "b", "c"]


def test_implicit_prerequisites():
    assert topological_sort({"app": ["lib", "utils"], "lib": ["utils"]}) == ["utils", "lib", "app"]


def test_lexicographically_smallest_order():
    deps = {"d": ["b"], "b": [], "a": ["c"], "c": []}
    assert topological_sort(deps) == ["b", "c", "a", "d"]


def test_duplicate_prerequisites():
    assert topological_sort({"b": ["a", "a", "a"]}) == ["a", "b"]


def test_diamond():
    deps = {"top": ["left", "right"], "left": ["base"], "right": ["base"]}
    assert topological_sort(deps) == ["base", "left", "right", "top"]


def test_cycle_detected():
    with pytest.raises(ValueError, match="cycle"):
        topological_sort({"x": ["y"], "y": ["z"], "z": ["x"], "ok": []})


def test_self_loop_is_cycle():
    with pytest.raises(ValueError, match="cycle"):
        topological_sort({"a": ["a"]})


def test_cycle_downstream_of_valid_part():
    with pytest.raises(ValueError, match="cycle"):
        topological_sort({"a": [], "b": ["a", "c"], "c": ["b"]})


def test_long_chain():
    n = 20000
    deps = {f"n{i:05d}": [f"n{i + 1:05d}"] for i in range(n)}
    result = topological_sort(deps)
    assert result[0] == f"n{n:05d}"
    assert result[-1] == "n00000"
    assert len(result) == n + 1


def test_result_is_valid_for_wide_graph():
    deps = {f"m{i}": [f"m{j}" for j in range(i) if (i * j) % 7 == 1] for i in range(300)}
    result = topological_sort(deps)
    position = {node: index for index, node in enumerate(result)}
    assert len(result) == 300
    for node, required in deps.items():
        for other in required:
            assert position[other] < position[node]
