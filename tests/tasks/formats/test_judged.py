"""Judged in the sandbox (LocalBackend): the references of cp_stdio and of the reader fixtures pass, and
a stub (`print()` for stdin/stdout, a function returning None for calls) fails."""

from __future__ import annotations

from codegym.sandbox.requests import request_for_task
from codegym.tasks.model import Task
from codegym.tasks.registry import TaskRegistry
from tests.tasks.formats.helpers import FIXTURES, read_tasks

SOURCES = [
    ("apps", FIXTURES / "apps" / "problems.jsonl"),
    ("apps", FIXTURES / "apps" / "dir_layout"),
    ("taco", FIXTURES / "taco" / "problems.jsonl"),
    ("code_contests", FIXTURES / "code_contests" / "problems.jsonl"),
    ("open-r1", FIXTURES / "open_r1" / "problems.jsonl"),
    ("open-r1", FIXTURES / "open_r1" / "primeintellect.jsonl"),
]


def _judged_tasks() -> list[Task]:
    tasks = list(TaskRegistry().load("cp_stdio").tasks.values())
    for format_name, source in SOURCES:
        read, _ = read_tasks(format_name, source)
        tasks.extend(t for t in read.values() if t.reference_solution)
    return tasks


def stub(task: Task) -> str:
    if task.cases.kind == "stdio":
        return "print()\n"
    name = task.cases.function
    if "." in name:
        cls, method = name.split(".")
        return f"class {cls}:\n    def {method}(self, *a):\n        return None\n"
    return f"def {name}(*a):\n    return None\n"


def test_references_pass_and_stubs_fail(local_backend) -> None:
    tasks = _judged_tasks()
    assert len(tasks) >= 30
    references = local_backend.execute_many([request_for_task(t, t.reference_solution) for t in tasks])
    stubs = local_backend.execute_many([request_for_task(t, stub(t)) for t in tasks])
    failing = {t.task_id: r.message[:200] for t, r in zip(tasks, references, strict=True) if not r.passed}
    assert failing == {}
    for task, result in zip(tasks, references, strict=True):
        assert result.tests_passed == result.tests_total == len(task.cases), task.task_id
    stub_passes = {t.task_id: r.tests_passed for t, r in zip(tasks, stubs, strict=True) if r.tests_passed}
    assert stub_passes == {}


# another valid order than the reference's: always the largest ready task first
LARGEST_FIRST = """
import heapq
import sys

data = sys.stdin.read().split()
n, m = int(data[0]), int(data[1])
after = [[] for _ in range(n + 1)]
indegree = [0] * (n + 1)
for i in range(m):
    u, v = int(data[2 + 2 * i]), int(data[3 + 2 * i])
    after[u].append(v)
    indegree[v] += 1
ready = [-t for t in range(1, n + 1) if indegree[t] == 0]
heapq.heapify(ready)
order = []
while ready:
    u = -heapq.heappop(ready)
    order.append(u)
    for v in after[u]:
        indegree[v] -= 1
        if indegree[v] == 0:
            heapq.heappush(ready, -v)
print(" ".join(map(str, order)) if len(order) == n else -1)
"""
MEAN_SIX_DECIMALS = """
n = int(input())
values = [float(x) for x in input().split()]
mean = sum(values) / n
print("%.6f %.6f" % (mean, (sum((v - mean) ** 2 for v in values) / n) ** 0.5))
"""


def test_checker_and_tolerance_accept_other_right_answers(local_backend) -> None:
    pack = TaskRegistry().load("cp_stdio")
    order, mean = pack.get("task_order"), pack.get("mean_and_deviation")
    assert any(
        c.expected.split() != ["-1"]
        and c.expected.split() != sorted(c.expected.split(), key=int, reverse=True)
        for c in order.cases.cases
    )  # the reference's order is not largest-first somewhere
    results = local_backend.execute_many(
        [
            request_for_task(order, LARGEST_FIRST),
            request_for_task(order, "print(*range(1, int(input().split()[0]) + 1))\n"),
            request_for_task(mean, MEAN_SIX_DECIMALS),
            request_for_task(mean, MEAN_SIX_DECIMALS.replace("(mean,", "(mean + 1e-5,")),
        ]
    )
    assert [r.passed for r in results] == [True, False, True, False]
