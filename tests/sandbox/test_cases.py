"""Input/output cases through the real local sandbox: stdin/stdout programs run once per case, call
cases call the program's function; the harness feeds, compares and times each case itself."""

from __future__ import annotations

import json
import os
import sys
import types

import pytest

from codegym.sandbox.local import LocalBackend
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, TestOutcome
from codegym.tasks.cases import Case, CaseSuite, Comparison, decode_value
from codegym.tasks.model import Limits

ADD_CASES = (Case("1 2\n", "3\n"), Case("5 7\n", "12\n"), Case("-4 4\n", "0\n"))
ADD = "a, b = map(int, input().split())\nprint(a + b)\n"


@pytest.fixture(scope="module")
def backend():
    with LocalBackend(workers=2) as backend:
        yield backend


def run(backend: LocalBackend, code: str, suite: CaseSuite, **options) -> ExecResult:
    limits = options.pop("limits", Limits(timeout_s=20))
    request = ExecRequest(files={"solution.py": code}, tests={}, cases=suite, limits=limits, **options)
    return backend.execute(request)


def outcomes(result: ExecResult) -> list[str]:
    return [t.outcome.value for t in result.tests]


@pytest.mark.parametrize(
    "code",
    [
        ADD,
        "import sys\na, b = map(int, sys.stdin.readline().split())\nsys.stdout.write(f'{a + b}\\n')\n",
        "print(sum(map(int, open(0).read().split())))\n",
        "import sys\nprint(sum(map(int, sys.stdin.buffer.read().split())))\nsys.exit(0)\n",
        # the deep-recursion idiom: the answer comes from a non-daemon thread
        "import sys, threading\ndef main():\n    print(sum(map(int, input().split())))\n"
        "threading.stack_size(1 << 24)\nthreading.Thread(target=main).start()\n",
        "if __name__ == '__main__':\n    a, b = map(int, input().split())\n    print(a + b, end='')\n",
        # streams of the program's own on the case's descriptors: each must end with its case (a
        # left one would close the next case's stdin or flush into its stdout)
        "import sys\nsys.stdin = open(0)\ninput = sys.stdin.readline\na, b = map(int, input().split())\nprint(a + b)\n",
        "input = open(0).readline\n\ndef main():\n    a, b = map(int, input().split())\n    print(a + b)\n\nmain()\n",
        "import sys\nsys.stdout = open(1, 'w')\nprint(sum(map(int, input().split())))\n",
        "out = open(1, 'w', closefd=False)\nout.write(str(sum(map(int, input().split()))) + '\\n')\n",
        # a module-level object whose __getattr__ raises KeyError: looking for streams must not run it
        "class AttrDict(dict):\n    __getattr__ = dict.__getitem__\n\nCONFIG = AttrDict(k=1)\n" + ADD,
    ],
    ids=[
        "input",
        "readline",
        "open0",
        "buffer_exit0",
        "thread",
        "main_guard",
        "sys_stdin_open0",
        "input_open0_readline",
        "sys_stdout_open1",
        "own_writer_never_flushed",
        "attrdict_global",
    ],
)
def test_ordinary_programs_pass_every_case(backend: LocalBackend, code: str) -> None:
    result = run(backend, code, CaseSuite("stdio", ADD_CASES))
    assert result.status is ExecStatus.PASSED, (result.message, [t.message for t in result.tests])
    assert outcomes(result) == ["passed"] * 3
    assert result.case_fraction == 1.0
    first = result.tests[0]
    assert (first.input_head, first.expected_head, first.actual_head.strip()) == ("1 2\n", "3\n", "3")


def test_a_wrong_answer_fails_with_the_heads_of_each_case(backend: LocalBackend) -> None:
    result = run(backend, "a, b = map(int, input().split())\nprint(a * b)\n", CaseSuite("stdio", ADD_CASES))
    assert result.status is ExecStatus.FAILED
    assert outcomes(result) == ["failed", "failed", "failed"]  # 1*2, 5*7, -4*4
    assert result.case_fraction == 0.0
    assert result.tests[1].actual_head == "35\n" and result.tests[1].expected_head == "12\n"
    assert result.message.startswith("case_0: wrong answer")


def test_a_runtime_error_shows_the_programs_traceback_only(backend: LocalBackend) -> None:
    result = run(
        backend, "x = int(input().split()[0])\nraise ValueError(f'bad {x}')\n", CaseSuite("stdio", ADD_CASES)
    )
    assert result.status is ExecStatus.ERROR
    message = result.tests[0].message
    assert "exit code 1" in message and "ValueError: bad 1" in message and "solution.py" in message
    assert "mainrun" not in message and "codegym" not in message.replace("/codegym/run", "")


def test_one_slow_case_times_out_alone_and_the_rest_are_judged(backend: LocalBackend) -> None:
    slow = "import time\na, b = map(int, input().split())\nif a == 5:\n    time.sleep(60)\nprint(a + b)\n"
    result = run(backend, slow, CaseSuite("stdio", ADD_CASES, case_timeout_s=1.0))
    assert outcomes(result) == ["passed", "timeout", "passed"]
    assert result.status is ExecStatus.TIMEOUT
    assert result.case_fraction == pytest.approx(2 / 3)
    assert 1.0 <= result.tests[1].duration_s < 5.0


def test_a_per_case_limit_overrides_the_suites(backend: LocalBackend) -> None:
    spin = "import time\na, b = map(int, input().split())\ntime.sleep(0.6)\nprint(a + b)\n"
    cases = (Case("1 2\n", "3\n", timeout_s=0.3), Case("5 7\n", "12\n", timeout_s=3.0))
    assert outcomes(run(backend, spin, CaseSuite("stdio", cases, case_timeout_s=1.0))) == [
        "timeout",
        "passed",
    ]


def test_stop_at_the_first_failure_leaves_the_fraction_undefined(backend: LocalBackend) -> None:
    result = run(backend, "print(3)\n", CaseSuite("stdio", ADD_CASES), stop_at_first_failure=True)
    assert outcomes(result) == ["passed", "failed", "not_run"]
    assert result.status is ExecStatus.FAILED and result.case_fraction is None


def test_never_reading_stdin_and_exiting_early_are_judged_by_the_output(backend: LocalBackend) -> None:
    assert outcomes(run(backend, "print(3)\n", CaseSuite("stdio", ADD_CASES))) == [
        "passed",
        "failed",
        "failed",
    ]
    early = "import sys\nsys.exit(0)\nprint(3)\n"
    assert outcomes(run(backend, early, CaseSuite("stdio", ADD_CASES))) == ["failed"] * 3
    code_3 = "import sys\nprint(sum(map(int, input().split())))\nsys.exit(3)\n"
    result = run(backend, code_3, CaseSuite("stdio", ADD_CASES))
    assert outcomes(result) == ["error"] * 3 and "exit code 3" in result.tests[0].message


def test_printing_past_the_cap_ends_that_case(backend: LocalBackend) -> None:
    flood = "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n"
    result = run(
        backend, flood, CaseSuite("stdio", ADD_CASES[:1]), limits=Limits(timeout_s=20, max_output_bytes=1000)
    )
    assert outcomes(result) == ["output_limit"] and result.status is ExecStatus.OUTPUT_LIMIT


def test_megabytes_of_input_and_output(backend: LocalBackend) -> None:
    numbers = " ".join(str(i) for i in range(600_000)) + "\n"  # ~4 MB each way
    echo = "import sys\ndata = sys.stdin.buffer.read()\nsys.stdout.buffer.write(data)\n"
    result = run(backend, echo, CaseSuite("stdio", (Case(numbers, numbers), Case("1\n", "1\n"))))
    assert result.status is ExecStatus.PASSED, result.message
    assert result.tests[0].input_head.endswith("more chars]")


def test_a_checker_judges_problems_with_many_right_answers(backend: LocalBackend) -> None:
    checker = (
        "def check(given, expected, actual):\n"
        "    n = int(given)\n"
        "    a, b = map(int, actual.split())\n"
        "    return a + b == n and a > 0 and b > 0\n"
    )
    suite = CaseSuite(
        "stdio", (Case("5\n", "1 4\n"), Case("9\n", "1 8\n")), comparison=Comparison(checker=checker)
    )
    assert run(backend, "n = int(input())\nprint(2, n - 2)\n", suite).status is ExecStatus.PASSED
    assert run(backend, "n = int(input())\nprint(0, n)\n", suite).status is ExecStatus.FAILED
    scored = "def check(given, expected, actual):\n    return 0.5 if actual.strip() else 1.0\n"
    partial = CaseSuite("stdio", (Case("5\n", "x\n"),), comparison=Comparison(checker=scored))
    assert run(backend, "print(1)\n", partial).status is ExecStatus.FAILED  # a score below 1 fails the case


def test_a_broken_checker_is_a_sandbox_error_never_the_programs_fault(backend: LocalBackend) -> None:
    broken = "def check(given, expected, actual):\n    raise KeyError('oops')\n"
    suite = CaseSuite("stdio", (Case("5\n", "x\n"),), comparison=Comparison(checker=broken))
    result = run(backend, "print(1)\n", suite)
    assert result.status is ExecStatus.SANDBOX_ERROR and "checker" in result.message


def test_a_float_answer_within_the_tolerance(backend: LocalBackend) -> None:
    suite = CaseSuite(
        "stdio", (Case("3\n", "0.3333333333\n"),), comparison=Comparison(float_rel=1e-6, float_abs=1e-6)
    )
    assert run(backend, "print(1 / int(input()))\n", suite).status is ExecStatus.PASSED
    assert run(backend, "print(round(1 / int(input()), 3))\n", suite).status is ExecStatus.FAILED


# -- call ----------------------------------------------------------------------------------------
CALL_CASES = (Case((1, 2), 3), Case((2, 2), 4), Case((-1, 1), 0))


def test_call_cases_and_a_fresh_instance_per_case(backend: LocalBackend) -> None:
    assert run(
        backend, "def add(a, b):\n    return a + b\n", CaseSuite("call", CALL_CASES, function="add")
    ).passed
    stateful = (
        "class Solution:\n    def __init__(self):\n        self.calls = 0\n"
        "    def add(self, a, b):\n        self.calls += 1\n        return a + b if self.calls == 1 else -1\n"
    )
    result = run(backend, stateful, CaseSuite("call", CALL_CASES, function="Solution.add"))
    assert result.status is ExecStatus.PASSED, [t.message for t in result.tests]
    wrong = run(backend, "def add(a, b):\n    return a - b\n", CaseSuite("call", CALL_CASES, function="add"))
    assert outcomes(wrong) == ["failed", "failed", "failed"]
    assert wrong.tests[0].input_head == "[1, 2]" and wrong.tests[0].actual_head == "-1"


def test_a_call_that_runs_over_ends_its_process_and_the_next_case_gets_a_new_one(
    backend: LocalBackend,
) -> None:
    code = "import time\ndef add(a, b):\n    if a == 2:\n        time.sleep(60)\n    return a + b\n"
    result = run(backend, code, CaseSuite("call", CALL_CASES, function="add", case_timeout_s=0.5))
    assert outcomes(result) == ["passed", "timeout", "passed"]


def test_a_call_that_mutates_its_arguments_cannot_change_the_stored_case(backend: LocalBackend) -> None:
    code = "def f(xs):\n    xs.append(99)\n    return len(xs)\n"
    suite = CaseSuite("call", (Case(([1, 2],), 3), Case(([1, 2],), 3)), function="f")
    assert run(backend, code, suite).passed


def test_an_object_that_claims_equality_is_not_data(backend: LocalBackend) -> None:
    code = "class Eq:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\ndef add(a, b):\n    return Eq()\n"
    assert run(backend, code, CaseSuite("call", CALL_CASES, function="add")).status is ExecStatus.FAILED


def test_recording_a_references_return_values(backend: LocalBackend) -> None:
    code = "def f(x):\n    return {'sq': (x * x,), 'half': x / 2, 'set': {x}}\n"
    suite = CaseSuite("call", (Case((2,), None), Case((3,), None)), function="f")
    result = run(backend, code, suite, record_returns=True)
    assert result.status is ExecStatus.PASSED
    values = [decode_value(json.loads(json.dumps(v))) for v in result.case_returns]
    assert values == [{"sq": [4], "half": 1.0, "set": {2}}, {"sq": [9], "half": 1.5, "set": {3}}]
    assert all(t.outcome is TestOutcome.PASSED and t.duration_s > 0 for t in result.tests)


# prints the sum only while every case so far ran in this same process (pids kept in /tmp, which
# lasts the pass): with main on a thread, a joined thread still exiting made the process unfit
THREADED_MAIN = (
    "import os, threading\n\n\ndef main():\n    with open('/tmp/pids', 'a') as f:\n"
    "        f.write(f'{os.getpid()}\\n')\n    with open('/tmp/pids') as f:\n"
    "        same = len(set(f.read().split())) == 1\n    a, b = map(int, input().split())\n"
    "    print(a + b if same else -1)\n\n\nthreading.stack_size(1 << 26)\n"
    "threading.Thread(target=main).start()\n"
)


def test_a_program_whose_main_runs_on_a_thread_keeps_its_process(backend: LocalBackend) -> None:
    """`threading.Thread(target=main).start()` (the deep-recursion idiom): once the thread is joined
    the process serves the next case, as a plain program's does (falseflag round 14, Q3: a fresh
    process for most cases, its start-up charged to the program's CPU time, efficiency 0.2-0.6)."""
    for _ in range(3):
        result = run(backend, THREADED_MAIN, CaseSuite("stdio", ADD_CASES))
        assert outcomes(result) == ["passed"] * 3, [(t.outcome.value, t.actual_head) for t in result.tests]


@pytest.mark.parametrize(
    "code",
    [
        # module state is fresh for every case
        "count = 0\ncount += 1\na, b = map(int, input().split())\nprint(a + b if count == 1 else -1)\n",
        # so are builtins and the environment
        "import builtins, os\nstale = hasattr(builtins, 'seen') or 'SEEN' in os.environ\n"
        "builtins.seen = os.environ['SEEN'] = '1'\na, b = map(int, input().split())\n"
        "print(-1 if stale else a + b)\n",
        # a case that ends its process: the next case gets a fresh one
        "import os, sys\na, b = map(int, input().split())\nprint(a + b)\nsys.stdout.flush()\nos._exit(0)\n",
        # a case that leaves a daemon thread running: likewise
        "import threading, time\nthreading.Thread(target=time.sleep, args=(30,), daemon=True).start()\n"
        "a, b = map(int, input().split())\nprint(a + b)\n",
        # exit() and quit() exist as under `python3 solution.py`, and atexit functions run per case
        "import atexit\na, b = map(int, input().split())\natexit.register(print, a + b)\nexit()\n",
    ],
    ids=["module_state", "builtins_and_environ", "os_exit", "daemon_thread", "exit_and_atexit"],
)
def test_every_case_runs_the_program_afresh(backend: LocalBackend, code: str) -> None:
    result = run(backend, code, CaseSuite("stdio", ADD_CASES))
    assert outcomes(result) == ["passed"] * 3, [
        (t.outcome.value, t.message, t.actual_head) for t in result.tests
    ]


def test_the_fast_io_aliases_of_a_cases_own_streams_keep_the_quick_release(monkeypatch) -> None:
    """`input = sys.stdin.readline`, `readline = sys.stdin.buffer.readline`, `write =
    sys.stdout.write` (competitive programming's fast-I/O idioms) are methods of the case's own
    streams: nothing of the program's to release, so no collection and no fresh process for the
    next case (falseflag round 18, V4: each case took the slow path, ~2 ms of the program's CPU per
    case, efficiency 0.3 for a correct program). A file the program opened still takes it."""
    from codegym.sandbox.inside import mainrun

    ours = tuple(
        open(os.devnull, mode, encoding="utf-8")  # noqa: SIM115 - closed below
        for mode in ("r", "w", "w")
    )
    monkeypatch.setattr(sys, "stdin", ours[0])
    monkeypatch.setattr(sys, "stdout", ours[1])
    monkeypatch.setattr(sys, "stderr", ours[2])
    try:
        module = types.ModuleType("__main__")
        module.input = ours[0].readline
        module.readline = ours[0].buffer.readline
        module.write = ours[1].write
        module.raw_write = ours[1].buffer.raw.write
        assert mainrun._release_program_streams(module, ours)
        assert {"input", "readline", "write", "raw_write"} <= set(vars(module))  # the quick path
        module.opened = open(os.devnull, encoding="utf-8")  # noqa: SIM115 - the release closes it
        mainrun._release_program_streams(module, ours)  # (this process's other streams answer False)
        assert "opened" not in vars(module)  # the slow path ran
    finally:
        for stream in ours:
            stream.close()
