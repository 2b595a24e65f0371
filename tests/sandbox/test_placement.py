"""Worker placement: each worker, with its harness and programs, on one CPU, spread over the CPUs."""

from __future__ import annotations

import os
from collections import Counter

import pytest

from codegym.sandbox.local import LocalBackend
from codegym.sandbox.placement import pinned_workers, plan_cpus, usable_cpus
from codegym.sandbox.types import ExecRequest

TWO_CPUS = pytest.mark.skipif(len(usable_cpus()) < 2, reason="placement needs two usable CPUs")

AFFINITY = (
    "import os, threading\n"
    "def affinity():\n"
    "    return sorted(os.sched_getaffinity(0))\n"
    "def thread_affinity():\n"
    "    seen = []\n"
    "    worker = threading.Thread(target=lambda: seen.append(sorted(os.sched_getaffinity(0))))\n"
    "    worker.start(); worker.join()\n"
    "    return seen[0]\n"
)


def test_a_pool_alternates_over_the_cpus() -> None:
    assert plan_cpus(5, [0, 1]) == [0, 1, 0, 1, 0]
    assert plan_cpus(3, [2, 5, 7]) == [2, 5, 7]


def test_a_pool_fills_the_cpus_other_pools_left_free_first() -> None:
    assert plan_cpus(4, [0, 1, 2], Counter({0: 2, 2: 1})) == [1, 1, 2, 0]
    # pins to CPUs this process may not use are someone else's business
    assert plan_cpus(2, [0, 1], Counter({3: 9})) == [0, 1]


def test_with_one_cpu_nothing_is_pinned() -> None:
    assert plan_cpus(3, [0]) == [None, None, None]
    assert plan_cpus(2, []) == [None, None]


def test_only_workers_pinned_to_a_single_cpu_are_counted(tmp_path) -> None:
    def process(pid: int, name: str, allowed: str) -> None:
        (tmp_path / str(pid)).mkdir()
        (tmp_path / str(pid) / "comm").write_text(f"{name}\n")
        (tmp_path / str(pid) / "status").write_text(
            f"Name:\t{name}\nState:\tS (sleeping)\nCpus_allowed:\tf\nCpus_allowed_list:\t{allowed}\n"
        )

    process(10, "cg-worker", "1")
    process(11, "cg-worker", "1")
    process(12, "cg-worker", "0-3")  # unpinned
    process(13, "python3", "0")  # not a worker
    process(14, "cg-worker-x", "2")  # another name
    (tmp_path / "self").mkdir()
    assert pinned_workers(str(tmp_path)) == Counter({1: 2})


@TWO_CPUS
def test_workers_and_their_programs_run_on_one_cpu_each() -> None:
    tests = (
        "from solution import affinity, thread_affinity\n"
        "def test_one_cpu():\n    assert len(affinity()) == 1\n"
        "def test_threads_too():\n    assert thread_affinity() == affinity()\n"
    )
    with LocalBackend(workers=2) as backend:
        backend.pool.start()
        cpus = [info.details["cpu"] for info in backend.pool.describe()]
        assert sorted(cpus) == sorted(backend.cpus) and None not in cpus
        result = backend.execute(ExecRequest(files={"solution.py": AFFINITY}, tests={"test_a.py": tests}))
        assert result.passed, result.tests
        program_cpu = backend.execute(
            ExecRequest(
                files={"solution.py": AFFINITY},
                tests={
                    "test_a.py": f"from solution import affinity\ndef test_cpu():\n    assert affinity()[0] in {cpus}\n"
                },
            )
        )
        assert program_cpu.passed, program_cpu.tests


@TWO_CPUS
def test_a_second_pool_takes_the_least_used_cpu() -> None:
    before = pinned_workers()
    with LocalBackend(workers=1) as first:
        first.pool.start()
        (taken,) = [info.details["cpu"] for info in first.pool.describe()]
        seen = pinned_workers()  # found in /proc by name, whichever backend started them
        assert seen[taken] == before[taken] + 1
        with LocalBackend(workers=1) as second:
            second.pool.start()
            (chosen,) = [info.details["cpu"] for info in second.pool.describe()]
    assert chosen == plan_cpus(1, usable_cpus(), seen)[0]
    low, high = usable_cpus()[:2]
    if before[low] == before[high]:  # evenly loaded before: the two pools took different CPUs
        assert chosen != taken


@TWO_CPUS
def test_pinning_can_be_turned_off() -> None:
    with LocalBackend(workers=1, pin_cpus=False) as backend:
        backend.pool.start()
        (info,) = backend.pool.describe()
        assert info.details["cpu"] is None
        result = backend.execute(
            ExecRequest(
                files={"solution.py": AFFINITY},
                tests={
                    "test_a.py": "from solution import affinity\ndef test_all():\n    assert len(affinity()) > 1\n"
                },
            )
        )
    assert result.passed, result.tests
    assert os.sched_getaffinity(0)  # the host process itself was never pinned
