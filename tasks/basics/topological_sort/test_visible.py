from solution import topological_sort


def test_simple():
    assert topological_sort({"b": ["a"], "c": ["a"], "a": []}) == ["a", "b", "c"]


def test_implicit_nodes():
    assert topological_sort({"app": ["lib", "utils"], "lib": ["utils"]}) == ["utils", "lib", "app"]
