"""Trusted checker of cp_stdio's `task_order` (pack.yaml `options.checker_for`): any order of the n tasks
that meets every "u before v" requirement is right, and -1 is right exactly when the reference found
none (the requirements have a cycle)."""


def check(input: str, expected: str, actual: str) -> bool:
    data = input.split()
    n, m = int(data[0]), int(data[1])
    edges = [(int(data[2 + 2 * i]), int(data[3 + 2 * i])) for i in range(m)]
    if expected.split() == ["-1"]:
        return actual.split() == ["-1"]
    try:
        order = [int(token) for token in actual.split()]
    except ValueError:
        return False
    if sorted(order) != list(range(1, n + 1)):
        return False
    position = {task: index for index, task in enumerate(order)}
    return all(position[u] < position[v] for u, v in edges)
