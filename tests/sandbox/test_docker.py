"""The docker backend's verdicts: parity with the local backend, the harness/program uid split, no
state crossing runs, timing and coverage semantics, pool exhaustion, results' image. These tests fail
when Docker cannot be started; they skip only when CODEGYM_SKIP_DOCKER=1 is set explicitly (see
docker_support.py).
"""

from __future__ import annotations

import dataclasses
import threading
from collections.abc import Iterator

import pytest

from codegym.sandbox.backend import SandboxUnavailable
from codegym.sandbox.docker import DockerBackend, Engine
from codegym.sandbox.docker.cleanup import labelled_containers
from codegym.sandbox.local import COVERAGE_PRELOAD, LocalBackend, worker_uids
from codegym.sandbox.placement import usable_cpus
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, Limits, TestOutcome
from codegym.tasks.cases import Case, CaseSuite
from tests.sandbox.docker_support import (
    ADD_TESTS,
    COVERAGE_PACKAGE_TESTS,
    COVERAGE_PACKAGE_UNSEEN,
    IMPORTS_COUNTED,
    IMPORTS_COUNTED_TESTS,
    docker_engine,
    line_of,
    sandbox_image,
)

pytestmark = pytest.mark.docker

ADD = "def add(a, b):\n    return a + b\n"
SLEEPY = "import time\ndef add(a, b):\n    time.sleep(0.4)\n    return a + b\n"

PARITY: dict[str, tuple[dict[str, str], str, Limits]] = {
    "passing": ({"solution.py": ADD}, ADD_TESTS, Limits()),
    "failing": ({"solution.py": "def add(a, b):\n    return a - b\n"}, ADD_TESTS, Limits()),
    "partial": (
        {"solution.py": "def add(a, b):\n    return 5\n"},
        ADD_TESTS + "\ndef test_other():\n    assert add(1, 1) == 2\n",
        Limits(),
    ),
    "syntax_error": ({"solution.py": "def add(a, b)\n    return a + b\n"}, ADD_TESTS, Limits()),
    "error_at_import": ({"solution.py": "raise RuntimeError('boom')\n"}, ADD_TESTS, Limits()),
    "error_in_call": ({"solution.py": "def add(a, b):\n    return a + None\n"}, ADD_TESTS, Limits()),
    "timeout": (
        {"solution.py": "def add(a, b):\n    while True:\n        pass\n"},
        ADD_TESTS,
        Limits(timeout_s=1.5),
    ),
    "memory": (
        {"solution.py": "def add(a, b):\n    return len(bytearray(2 * 1024**3))\n"},
        ADD_TESTS,
        Limits(memory_mb=128),
    ),
    "output_limit": (
        {"solution.py": "def add(a, b):\n    print('x' * 100_000)\n    return a + b\n"},
        ADD_TESTS,
        Limits(max_output_bytes=10_000),
    ),
    "pytest_runner": (
        {"solution.py": ADD},
        "import pytest\nfrom solution import add\n\n"
        "@pytest.mark.parametrize('a,b,c', [(1, 2, 3), (2, 2, 5)])\ndef test_add(a, b, c):\n"
        "    assert add(a, b) == c\n",
        Limits(),
    ),
    "multi_file": (
        {
            "solution.py": "from helpers.base import double\ndef add(a, b):\n    return double(a) - a + b\n",
            "helpers/__init__.py": "",
            "helpers/base.py": "def double(x):\n    return 2 * x\n",
        },
        ADD_TESTS,
        Limits(),
    ),
    "early_exit": ({"solution.py": "import os\ndef add(a, b):\n    os._exit(0)\n"}, ADD_TESTS, Limits()),
    # a program-defined object never leaves the program: equal to plain data it simply is not
    "program_object_eq": (
        {
            "solution.py": "class Same:\n    def __eq__(self, other):\n        return True\n"
            "    __hash__ = object.__hash__\ndef add(a, b):\n    return Same()\n"
        },
        ADD_TESTS,
        Limits(),
    ),
    "subprocess": (
        {
            "solution.py": "import subprocess, sys\ndef add(a, b):\n"
            "    out = subprocess.run([sys.executable, '-c', f'print({a}+{b})'], capture_output=True)\n"
            "    return int(out.stdout)\n"
        },
        ADD_TESTS,
        Limits(),
    ),
}


@pytest.fixture(scope="module")
def docker_backend() -> Iterator[DockerBackend]:
    with DockerBackend(image=sandbox_image(), workers=2, preload=COVERAGE_PRELOAD) as backend:
        backend.start()
        yield backend


def _summary(result: ExecResult) -> tuple:
    if result.status is ExecStatus.OUTPUT_LIMIT:
        # which tests were announced or reported before the run was stopped is a race in every
        # backend (even the test list: the output can pass the cap before the harness lists them)
        return (result.status, sorted(result.flags))
    return (result.status, [(t.test_id, t.outcome) for t in result.tests], sorted(result.flags))


@pytest.mark.parametrize("case", sorted(PARITY))
def test_verdicts_match_the_local_backend(
    case: str, docker_backend: DockerBackend, local_backend: LocalBackend
) -> None:
    files, tests, limits = PARITY[case]
    request = ExecRequest(files=files, tests={"test_hidden.py": tests}, limits=limits)
    ours, theirs = docker_backend.execute(request), local_backend.execute(request)
    assert _summary(ours) == _summary(theirs), (ours.message, theirs.message, ours.stderr[-300:])
    assert ours.status is not ExecStatus.SANDBOX_ERROR
    assert ours.backend == "docker" and ours.attempts == 1


@pytest.mark.slow
def test_humaneval_verdicts_match_the_local_backend(
    docker_backend: DockerBackend, local_backend: LocalBackend, task_registry
) -> None:
    tasks = list(task_registry.load("humaneval").tasks.values())[:24]
    requests = [request_for_task(t, t.reference_solution) for t in tasks]
    requests += [
        request_for_task(t, t.reference_solution.replace("return", "return None and", 1)) for t in tasks
    ]
    ours, theirs = docker_backend.execute_many(requests), local_backend.execute_many(requests)
    assert [_summary(r) for r in ours] == [_summary(r) for r in theirs]
    assert all(r.passed for r in ours[: len(tasks)])


def test_coverage_matches_the_local_backend(
    docker_backend: DockerBackend, local_backend: LocalBackend, task_registry
) -> None:
    tasks = list(task_registry.load("humaneval").tasks.values())[:8]
    # a budget no pass reaches on a busy machine: this compares figures, not where a budget cuts
    requests = [
        dataclasses.replace(
            request_for_task(t, t.reference_solution, measure_coverage=True), coverage_budget_s=30
        )
        for t in tasks
    ]
    ours, theirs = docker_backend.execute_many(requests), local_backend.execute_many(requests)
    for mine, reference in zip(ours, theirs, strict=True):
        assert mine.coverage is not None and reference.coverage is not None
        assert mine.coverage["complete"] and reference.coverage["complete"]
        assert mine.coverage["executed_lines"] == reference.coverage["executed_lines"]


ANSWER_TESTS = "from solution import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
# 42 only if what an earlier run left (a SysV shared-memory segment, a /dev/shm file, a /tmp file) is
# still there; 41 once it made all three itself; 40 if it could not (the test would prove nothing).
LEAVE_AND_LOOK_FOR_LEFTOVERS = (
    "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\nKEY = 0x5EED42\n"
    "PATHS = ('/tmp/codegym-leftover', '/dev/shm/codegym-leftover')\n"
    "def answer():\n"
    "    found = libc.shmget(KEY, 0, 0) != -1 or any(os.path.exists(p) for p in PATHS)\n"
    "    made = libc.shmget(KEY, 4096, 0o1600) != -1  # IPC_CREAT | 0600\n"
    "    for path in PATHS:\n"
    "        try:\n"
    "            with open(path, 'w') as handle:\n"
    "                handle.write('x')\n"
    "        except OSError:\n"
    "            made = False\n"
    "    return 42 if found else (41 if made else 40)\n"
)


def test_ipc_objects_and_files_do_not_outlive_a_run() -> None:
    request = ExecRequest(
        files={"solution.py": LEAVE_AND_LOOK_FOR_LEFTOVERS}, tests={"test_hidden.py": ANSWER_TESTS}
    )
    with DockerBackend(image=sandbox_image(), workers=1) as backend:
        backend.start()
        container = backend.containers()
        results = [backend.execute(request) for _ in range(3)]
        assert backend.containers() == container and backend.pool.restarts == 0  # the same container
    for result in results:
        assert result.status is ExecStatus.FAILED, (result.message, result.stderr[-300:])
        assert [t.message for t in result.tests] == ["AssertionError: 41 != 42"]
        assert result.attempts == 1


def test_program_and_harness_run_under_the_pools_distinct_uids(docker_backend: DockerBackend) -> None:
    """The program sees its own uid, the root worker and zygote, and the harness under the other uid."""
    program = (
        "import os\ndef answer():\n    uids = set()\n    for pid in os.listdir('/proc'):\n"
        "        try:\n            with open(f'/proc/{pid}/status') as f:\n"
        "                uids.add(int(next(l for l in f if l.startswith('Uid:')).split()[1]))\n"
        "        except (OSError, ValueError, StopIteration):\n            pass\n"
        "    return [os.getuid(), sorted(uids)]\n"
    )
    expected = [
        [program_uid, sorted({0, program_uid, harness_uid})]
        for program_uid, harness_uid in (worker_uids(docker_backend.uid_base, slot) for slot in range(2))
    ]
    tests = f"from solution import answer\n\n\ndef test_uids():\n    assert answer() in {expected!r}\n"
    result = docker_backend.execute(
        ExecRequest(files={"solution.py": program}, tests={"test_hidden.py": tests})
    )
    assert result.status is ExecStatus.PASSED, (result.message, [t.message for t in result.tests])
    assert all(w["uid"] == 0 for w in docker_backend.info()["pool"])  # the worker itself is root
    other = DockerBackend(image=sandbox_image(), workers=1)
    try:
        assert abs(other.uid_base - docker_backend.uid_base) >= 64  # pools never share a uid
    finally:
        other.close()


def test_each_containers_worker_and_programs_run_on_one_cpu(docker_backend: DockerBackend) -> None:
    """The same placement as the local backend: the worker pins itself (see sandbox/placement.py)."""
    if len(usable_cpus()) < 2:
        pytest.skip("placement needs two usable CPUs")
    program = "import os\ndef affinity():\n    return sorted(os.sched_getaffinity(0))\n"
    tests = "from solution import affinity\n\n\ndef test_one_cpu():\n    assert len(affinity()) == 1\n"
    result = docker_backend.execute(
        ExecRequest(files={"solution.py": program}, tests={"test_hidden.py": tests})
    )
    assert result.status is ExecStatus.PASSED, (result.message, [t.message for t in result.tests])
    cpus = [w["cpu"] for w in docker_backend.info()["pool"]]
    assert cpus and None not in cpus
    assert set(cpus) <= set(docker_backend.cpus)


def test_timings_and_coverage_follow_the_harness_semantics(docker_backend: DockerBackend) -> None:
    passing = ExecRequest(
        files={"solution.py": ADD},
        tests={"test_hidden.py": "from solution import add\n\ndef test_ok():\n    assert add(2, 3) == 5\n"},
        timing_repeats=3,
        timing_budget_s=10,
    )
    timed = docker_backend.execute(passing)
    assert timed.status is ExecStatus.PASSED and len(timed.timings_s) == 4  # the verdict pass + 3
    failing = docker_backend.execute(
        ExecRequest(
            files={"solution.py": "def add(a, b):\n    return 0\n"}, tests=passing.tests, timing_repeats=3
        )
    )
    assert failing.status is ExecStatus.FAILED and failing.timings_s == ()  # only a passing program is timed
    # traced, far slower than the budget plus ten times the verdict pass's test time
    slow_traced = "import sys, time\n\n\ndef add(a, b):\n    if sys.gettrace() is not None:\n        time.sleep(1.5)\n    return a + b\n"
    cut = docker_backend.execute(
        ExecRequest(
            files={"solution.py": slow_traced},
            tests=passing.tests,
            measure_coverage=True,
            coverage_budget_s=0.1,
        )
    )
    assert cut.status is ExecStatus.PASSED and cut.coverage == {"complete": False}  # a cut pass: no figure
    full = docker_backend.execute(
        ExecRequest(
            files={"solution.py": ADD}, tests=passing.tests, measure_coverage=True, coverage_budget_s=30
        )
    )
    assert (
        full.coverage is not None
        and full.coverage["complete"] is True
        and 2 in full.coverage["executed_lines"]
    )


def test_a_coverage_pool_never_loads_the_coverage_package_into_programs(
    docker_backend: DockerBackend,
) -> None:
    """Docker's /tmp is mounted noexec: the tracer's module loads from an anonymous memory file
    (falling back to the whole coverage package would double every container zygote's heap)."""
    _fully_covered(docker_backend, COVERAGE_PACKAGE_UNSEEN, COVERAGE_PACKAGE_TESTS)


def test_the_coverage_pass_goes_on_in_the_verdict_pass_process(docker_backend: DockerBackend) -> None:
    """As on the local backend (the same zygote): the candidate's module runs again in the verdict
    pass's process, under the tracer, and the output kept is the verdict pass's alone."""
    result = _fully_covered(docker_backend, IMPORTS_COUNTED, IMPORTS_COUNTED_TESTS)
    assert result.coverage is not None
    assert line_of(IMPORTS_COUNTED, "'again'") in result.coverage["executed_lines"]
    assert result.stdout == "imported\ncalled\n"


def _fully_covered(backend: DockerBackend, solution: str, tests: str) -> ExecResult:
    """The result of `solution` with coverage measured, once it passed and got a complete figure."""
    result = backend.execute(
        ExecRequest(
            files={"solution.py": solution},
            tests={"test_hidden.py": tests},
            measure_coverage=True,
            coverage_budget_s=30,
        )
    )
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    return result


def test_results_record_the_image_digest(docker_backend: DockerBackend) -> None:
    result = docker_backend.execute(
        ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": ADD_TESTS})
    )
    reference, _, digest = result.image.partition("@")
    assert reference == sandbox_image() and digest.startswith("sha256:") and len(digest) == 71
    assert docker_backend.engine.image_id(reference) == digest


def test_more_concurrent_requests_than_containers_all_complete(docker_backend: DockerBackend) -> None:
    slow = ExecRequest(files={"solution.py": SLEEPY}, tests={"test_hidden.py": ADD_TESTS})
    looping = ExecRequest(
        files={"solution.py": "def add(a, b):\n    while True:\n        pass\n"},
        tests={"test_hidden.py": ADD_TESTS},
        limits=Limits(timeout_s=1.0),
    )
    results: list[ExecResult] = []
    lock = threading.Lock()

    def submit(request: ExecRequest) -> None:
        result = docker_backend.execute(request)
        with lock:
            results.append(result)

    threads = [threading.Thread(target=submit, args=(slow if i % 3 else looping,)) for i in range(12)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    statuses = sorted(r.status.value for r in results)
    assert statuses == ["passed"] * 8 + ["timeout"] * 4
    batch = docker_backend.execute_many([slow] * 9, max_concurrency=50)
    assert [r.status for r in batch] == [ExecStatus.PASSED] * 9


def test_pool_containers_are_labelled_and_removed_on_close() -> None:
    with DockerBackend(image=sandbox_image(), workers=2) as backend:
        backend.start()
        engine = backend.engine
        mine = labelled_containers(engine, backend.pool_id)
        assert sorted(c["Id"] for c in mine) == sorted(backend.containers())
        assert all(c["State"] == "running" for c in mine)
        pool_id = backend.pool_id
    check = Engine()
    try:
        assert labelled_containers(check, pool_id) == []
    finally:
        check.close()


def test_missing_image_is_a_clear_error() -> None:
    docker_engine().close()
    with pytest.raises(SandboxUnavailable, match="codegym sandbox build"):
        DockerBackend(image="codegym-sandbox:does-not-exist")


CASE_SUITES = {
    "stdio": (
        CaseSuite("stdio", (Case("1 2\n", "3\n"), Case("5 7\n", "12\n")), case_timeout_s=2.0),
        {
            "right": "a, b = map(int, input().split())\nprint(a + b)\n",
            "wrong": "print(3)\n",
            "slow": "import time\na, b = map(int, input().split())\nif a == 5:\n    time.sleep(30)\nprint(a + b)\n",
            "crash": "raise SystemExit(4)\n",
        },
    ),
    "call": (
        CaseSuite("call", (Case((1, 2), 3), Case((5, 7), 12)), function="Solution.add", case_timeout_s=2.0),
        {
            "right": "class Solution:\n    def add(self, a, b):\n        return a + b\n",
            "wrong": "class Solution:\n    def add(self, a, b):\n        return 3\n",
            "slow": "import time\nclass Solution:\n    def add(self, a, b):\n"
            "        if a == 5:\n            time.sleep(30)\n        return a + b\n",
        },
    ),
}


@pytest.mark.parametrize(
    ("kind", "program"), [(kind, name) for kind, (_, programs) in CASE_SUITES.items() for name in programs]
)
def test_case_verdicts_match_the_local_backend(
    kind: str, program: str, docker_backend: DockerBackend, local_backend: LocalBackend
) -> None:
    suite, programs = CASE_SUITES[kind]
    request = ExecRequest(files={"solution.py": programs[program]}, tests={}, cases=suite)
    ours, theirs = docker_backend.execute(request), local_backend.execute(request)
    assert _summary(ours) == _summary(theirs), (ours.message, theirs.message)
    assert [t.actual_head for t in ours.tests] == [t.actual_head for t in theirs.tests]
    assert ours.status is not ExecStatus.SANDBOX_ERROR


MEMORY_BOMB = "    hog = []\n    while True:\n        hog.append(bytearray(10**7))\n"


def test_the_memory_bomb_is_memory_on_both_backends(
    docker_backend: DockerBackend, local_backend: LocalBackend
) -> None:
    """The memory bomb runs out of memory in the first test; later tests may reach the run's deadline
    (on a loaded machine, or under the container's CPU quota, they do: docker then said `timeout`).
    The limit hit first is the verdict, whatever the speed: `memory` on both backends."""
    bomb = "def add(a, b):\n" + MEMORY_BOMB + "\ndef spin():\n    while True:\n        pass\n"
    then_deadline = ADD_TESTS + "\ndef test_spin():\n    from solution import spin\n    spin()\n"
    limits = Limits(timeout_s=3.0, memory_mb=256)
    for tests in (ADD_TESTS, then_deadline):
        request = ExecRequest(files={"solution.py": bomb}, tests={"test_hidden.py": tests}, limits=limits)
        ours, theirs = docker_backend.execute(request), local_backend.execute(request)
        assert ours.status is ExecStatus.MEMORY, (ours.status, ours.message)
        assert theirs.status is ExecStatus.MEMORY, (theirs.status, theirs.message)
        assert ours.tests[0].outcome == theirs.tests[0].outcome == TestOutcome.MEMORY
