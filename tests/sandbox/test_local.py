"""The local backend's verdicts on benign programs: statuses, per-test results, runners, limits."""

from __future__ import annotations

import asyncio
import json
import os
import subprocess
import sys
import threading
import time
import uuid
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pytest

from codegym.sandbox.local import COVERAGE_PRELOAD, INSIDE_DIR, LocalBackend, probe_isolation
from codegym.sandbox.pool import PIPELINE_DEPTH, WorkerPool
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, Limits, TestOutcome
from tests.conftest import REPO_ROOT
from tests.sandbox.docker_support import (
    COVERAGE_PACKAGE_TESTS,
    COVERAGE_PACKAGE_UNSEEN,
    IMPORTS_COUNTED,
    IMPORTS_COUNTED_TESTS,
    line_of,
)

ADD = "def add(a, b):\n    return a + b\n"
ADD_TESTS = (
    "from solution import add\n\n"
    "def test_small():\n    assert add(1, 2) == 3\n\n"
    "def test_wrong_expectation():\n    assert add(2, 2) == 5\n\n"
    "def test_raises():\n    add(None, 1)\n"
)
ISOLATIONS = [tool for tool in ("bwrap", "unshare") if probe_isolation(tool) is None]


def run(backend: LocalBackend, solution: str, tests: str, **kwargs: object) -> ExecResult:
    files = {"solution.py": solution, **kwargs.pop("extra_files", {})}  # type: ignore[dict-item]
    return backend.execute(ExecRequest(files=files, tests={"test_hidden.py": tests}, **kwargs))  # type: ignore[arg-type]


@pytest.mark.parametrize("isolation", ISOLATIONS)
def test_per_test_outcomes_under_each_isolation_tool(isolation: str) -> None:
    with LocalBackend(isolation=isolation, workers=1) as backend:
        result = run(backend, ADD, ADD_TESTS)
    assert result.status is ExecStatus.FAILED
    outcomes = {t.test_id: t.outcome for t in result.tests}
    assert outcomes == {
        "test_hidden.py::test_small": TestOutcome.PASSED,
        "test_hidden.py::test_wrong_expectation": TestOutcome.FAILED,
        "test_hidden.py::test_raises": TestOutcome.ERROR,
    }
    assert (result.tests_passed, result.tests_total) == (1, 3)
    wrong = next(t for t in result.tests if t.test_id.endswith("wrong_expectation"))
    assert wrong.message == "AssertionError: 4 != 5"
    raises = next(t for t in result.tests if t.test_id.endswith("raises"))
    assert raises.message.startswith("TypeError")
    assert 'File "solution.py", line 2, in add' in raises.traceback
    assert result.image == f"local:{isolation}:python{'.'.join(map(str, sys.version_info[:3]))}"


def test_passing_program(local_backend: LocalBackend) -> None:
    result = run(
        local_backend, ADD, "from solution import add\n\ndef test_ok():\n    assert add(2, 3) == 5\n"
    )
    assert result.status is ExecStatus.PASSED and result.passed
    assert result.runner == "fast"
    assert result.wall_s > 0 and result.peak_memory_mb > 0


MODULE_FACTS = (
    "import sys\n"
    "def facts():\n"
    "    module = sys.modules[__name__]\n"
    "    return (__name__, __file__.endswith('/solution.py'), __spec__.name, __spec__.origin == __file__,\n"
    "            module.__loader__.get_source(__name__) is not None, facts.__code__.co_filename == __file__,\n"
    "            __package__, '/__pycache__/solution.' in __cached__)\n"
)


@pytest.mark.parametrize("padding", [0, 40_000], ids=["compiled-by-the-worker", "compiled-in-the-program"])
def test_the_candidate_module_is_what_the_import_system_makes(
    local_backend: LocalBackend, padding: int
) -> None:
    """Name, file, spec, loader, package, cached path and code filename as `import solution` gives
    them, whether the worker compiled the module (small ones) or the program process did; a coding
    cookie is honoured the same way (the file is UTF-8, so a latin-1 cookie reads 'é' as two
    characters, as Python would)."""
    solution = "# -*- coding: latin-1 -*-\n" + "#" * padding + "\n" + MODULE_FACTS + "WORD = 'é'\n"
    tests = (
        "from solution import facts, WORD\n\n"
        "def test_module():\n"
        "    assert facts() == ('solution', True, 'solution', True, True, True, '', True)\n\n"
        "def test_cookie():\n"
        "    assert len(WORD) == 2\n"
    )
    result = run(local_backend, solution, tests)
    assert result.status is ExecStatus.PASSED, result


def test_a_program_process_inherits_none_of_the_workers_modules(local_backend: LocalBackend) -> None:
    """A program process is a fork of the zygote, and each module the zygote holds is copied at every
    fork and torn down at every exit: boot.py forks the zygote before the worker's own modules load,
    and the codec loads datetime, decimal and fractions on first use. So a program finds loaded
    what it runs on (the zygote's and the program server's modules, the preloaded typing) and none
    of the worker's, json, socket, the seccomp builder or those three."""
    solution = "import sys\n\ndef loaded():\n    return sorted(sys.modules)\n"
    tests = (
        "from solution import loaded\n\n"
        "ABSENT = ('worker', 'protocol', 'harness', 'remote', 'seccomp', 'platform', 'json', 'socket',\n"
        "          'datetime', 'decimal', 'fractions')\n\n"
        "def test_absent():\n"
        "    assert [name for name in ABSENT if name in loaded()] == []\n\n"
        "def test_present():\n"
        "    assert {'zygote', 'program', 'wire', 'typing'} <= set(loaded())\n"
    )
    result = run(local_backend, solution, tests)
    assert result.status is ExecStatus.PASSED, result.tests


def test_nothing_a_program_does_to_its_module_reaches_the_next_program() -> None:
    """The candidate's module object is made once by the zygote and copied (copy-on-write) into each
    program process: what one program writes into it, or into its spec, stays in that process."""
    tamper = (
        "import sys\nLEFT = 'behind'\n__spec__.name = 'tampered'\n__loader__.name = 'tampered'\n"
        "sys.modules[__name__].__dict__['EXTRA'] = 1\n\ndef ok():\n    return True\n"
    )
    check = (
        "def ok():\n    return ('LEFT' not in globals() and 'EXTRA' not in globals()\n"
        "            and __spec__.name == 'solution' and __loader__.name == 'solution')\n"
    )
    tests = "from solution import ok\n\ndef test_ok():\n    assert ok()\n"
    with LocalBackend(workers=1) as backend:
        results = [run(backend, code, tests) for code in (tamper, check, tamper, check)]
    assert [r.status for r in results] == [ExecStatus.PASSED] * 4, [r.tests for r in results]


def test_syntax_error_is_an_error_not_a_failure(local_backend: LocalBackend) -> None:
    result = run(local_backend, "def add(a, b)\n    return a + b\n", ADD_TESTS)
    assert result.status is ExecStatus.ERROR
    assert "SyntaxError" in result.message
    assert result.tests == ()


def test_module_without_tests_is_an_error(local_backend: LocalBackend) -> None:
    result = run(local_backend, ADD, "from solution import add\n")
    assert result.status is ExecStatus.ERROR
    assert result.message == "no tests were collected"


def test_hidden_tests_are_not_readable_by_the_program(local_backend: LocalBackend) -> None:
    solution = "import os\ndef listing():\n    return sorted(os.listdir('.'))\n"
    tests = (
        "from solution import listing\n\n"
        "def test_listing():\n    assert listing() == ['.tmp', 'solution.py']\n"
    )
    assert run(local_backend, solution, tests).status is ExecStatus.PASSED


def test_environment_is_scrubbed(local_backend: LocalBackend) -> None:
    os.environ["CODEGYM_LEAK_CHECK"] = "host-value"
    try:
        solution = "import os\ndef keys():\n    return sorted(os.environ)\n"
        tests = (
            "from solution import keys\n\ndef test_keys():\n"
            "    assert keys() == ['HOME', 'LANG', 'PATH', 'PYTHONDONTWRITEBYTECODE',"
            " 'PYTHONHASHSEED', 'TMPDIR']\n"
        )
        assert run(local_backend, solution, tests).status is ExecStatus.PASSED
    finally:
        del os.environ["CODEGYM_LEAK_CHECK"]


def test_class_based_tests_with_setup_method(local_backend: LocalBackend) -> None:
    tests = (
        "from solution import add\n\nclass TestAdd:\n"
        "    def setup_method(self, method):\n        self.base = 10\n\n"
        "    def test_base(self):\n        assert add(self.base, 1) == 11\n\n"
        "    def test_negative(self):\n        assert add(-self.base, 1) == -9\n"
    )
    result = run(local_backend, ADD, tests)
    assert result.status is ExecStatus.PASSED
    assert [t.test_id for t in result.tests] == [
        "test_hidden.py::TestAdd::test_base",
        "test_hidden.py::TestAdd::test_negative",
    ]


def test_parametrize_and_fixtures_use_real_pytest(local_backend: LocalBackend) -> None:
    tests = (
        "import pytest\nfrom solution import add\n\n"
        "@pytest.fixture\ndef ten():\n    return 10\n\n"
        "@pytest.mark.parametrize('a,b,total', [(1, 2, 3), (2, 2, 5)])\n"
        "def test_table(a, b, total):\n    assert add(a, b) == total\n\n"
        "def test_fixture(ten):\n    assert add(ten, ten) == 20\n\n"
        "def test_raises():\n    with pytest.raises(TypeError):\n        add(None, 1)\n"
    )
    result = run(local_backend, ADD, tests)
    assert result.runner == "pytest"
    assert result.status is ExecStatus.FAILED
    outcomes = {t.test_id: t.outcome.value for t in result.tests}
    assert outcomes == {
        "test_hidden.py::test_table[1-2-3]": "passed",
        "test_hidden.py::test_table[2-2-5]": "failed",
        "test_hidden.py::test_fixture": "passed",
        "test_hidden.py::test_raises": "passed",
    }


def test_pytest_path_compares_plain_data_only(local_backend: LocalBackend) -> None:
    solution = (
        "class Same:\n    def __eq__(self, other):\n        return True\ndef add(a, b):\n    return Same()\n"
    )
    tests = (
        "import pytest\nfrom solution import add\n\n@pytest.mark.parametrize('a', [1])\ndef test_p(a):\n"
        "    assert add(a, 1) == 2\n"
    )
    result = run(local_backend, solution, tests)
    assert result.runner == "pytest"
    assert result.status is ExecStatus.FAILED
    assert "stays in the program" in result.tests[0].message


def test_legitimate_cross_type_equality_is_accepted(local_backend: LocalBackend) -> None:
    solution = (
        "from fractions import Fraction\nfrom collections import OrderedDict\n"
        "def values():\n    return [Fraction(1, 2), True, 2, OrderedDict(a=1), (1, 2)]\n"
    )
    tests = (
        "from solution import values\n\ndef test_values():\n"
        "    assert values() == [0.5, 1, 2.0, {'a': 1}, (1, 2)]\n"
    )
    assert run(local_backend, solution, tests).status is ExecStatus.PASSED


def test_repo_classes_with_their_own_eq_are_trusted(local_backend: LocalBackend) -> None:
    money = (
        "class Money:\n    def __init__(self, cents):\n        self.cents = cents\n"
        "    def __eq__(self, other):\n        return getattr(other, 'cents', other) == self.cents\n"
    )
    solution = "from shop.money import Money\ndef total(items):\n    return Money(sum(items))\n"
    tests = "from solution import total\n\ndef test_total():\n    assert total([1, 2]) == 3\n"
    result = run(local_backend, solution, tests, extra_files={"shop/__init__.py": "", "shop/money.py": money})
    assert result.status is ExecStatus.PASSED


def test_output_is_captured_and_truncated(local_backend: LocalBackend) -> None:
    solution = (
        "import sys\ndef noisy():\n    print('HEAD')\n    print('x' * 100_000)\n"
        "    print('TAIL', file=sys.stderr)\n    return 1\n"
    )
    tests = "from solution import noisy\n\ndef test_noisy():\n    assert noisy() == 1\n"
    result = run(local_backend, solution, tests)
    assert result.status is ExecStatus.PASSED
    assert result.stdout.startswith("HEAD") and "bytes omitted" in result.stdout
    assert result.output_truncated
    assert result.stderr.strip() == "TAIL"


def test_output_limit(local_backend: LocalBackend) -> None:
    solution = "def noisy():\n    print('y' * 50_000)\n    return 1\n"
    tests = "from solution import noisy\n\ndef test_noisy():\n    assert noisy() == 1\n"
    result = run(local_backend, solution, tests, limits=Limits(max_output_bytes=10_000))
    assert result.status is ExecStatus.OUTPUT_LIMIT


def test_timeout_keeps_finished_tests(local_backend: LocalBackend) -> None:
    solution = "import time\ndef slow(n):\n    if n > 1:\n        time.sleep(60)\n    return n\n"
    tests = (
        "from solution import slow\n\ndef test_fast():\n    assert slow(1) == 1\n\n"
        "def test_slow():\n    assert slow(2) == 2\n\ndef test_never_reached():\n    assert slow(0) == 0\n"
    )
    started = time.monotonic()
    result = run(local_backend, solution, tests, limits=Limits(timeout_s=1.0))
    assert time.monotonic() - started < 8
    assert result.status is ExecStatus.TIMEOUT
    assert [t.outcome for t in result.tests] == [TestOutcome.PASSED, TestOutcome.TIMEOUT, TestOutcome.TIMEOUT]


def test_memory_error_is_memory(local_backend: LocalBackend) -> None:
    solution = "def big():\n    return bytearray(400 * 1024 * 1024)\n"
    tests = "from solution import big\n\ndef test_big():\n    assert len(big()) > 0\n"
    result = run(local_backend, solution, tests, limits=Limits(memory_mb=128))
    assert result.status is ExecStatus.MEMORY


def test_multi_file_repo_and_nested_solution_path(local_backend: LocalBackend) -> None:
    files = {
        "pkg/__init__.py": "",
        "pkg/units.py": "FACTOR = 3\n",
        "pkg/calc.py": "from .units import FACTOR\n\ndef triple(x):\n    return x * FACTOR\n",
    }
    tests = "from pkg.calc import triple\n\ndef test_triple():\n    assert triple(2) == 6\n"
    request = ExecRequest(files=files, tests={"test_hidden.py": tests}, solution_path="pkg/calc.py")
    assert local_backend.execute(request).status is ExecStatus.PASSED


SIGN = "def sign(x):\n    if x > 0:\n        return 1\n    elif x < 0:\n        return -1\n    return 0\n"


@pytest.mark.parametrize("preload", [(), ("coverage",)], ids=["lazy", "preloaded"])
def test_coverage_of_the_solution_by_measured_tests_only(preload: tuple[str, ...]) -> None:
    hidden = "from solution import sign\n\ndef test_positive():\n    assert sign(5) == 1\n"
    visible = "from solution import sign\n\ndef test_negative():\n    assert sign(-5) == -1\n"
    request = ExecRequest(
        files={"solution.py": SIGN},
        tests={"test_hidden.py": hidden, "test_visible.py": visible},
        measure_coverage=True,
        measured_test_files=("test_hidden.py",),
    )
    with LocalBackend(workers=1, preload=preload) as backend:
        result = backend.execute(request)
    assert result.status is ExecStatus.PASSED and result.tests_total == 2
    assert result.coverage == {
        "complete": True,
        "executed_lines": [1, 2, 3],
        "missing_lines": [4, 5, 6],
        "executed_branches": [[2, 3]],
        "missing_branches": [[2, 4], [4, 5], [4, 6]],
    }


@pytest.mark.parametrize("runner", ["fast", "pytest"])
def test_a_task_whose_tests_take_longer_than_the_coverage_budget_still_gets_coverage(runner: str) -> None:
    """The coverage pass may take its budget plus ten times the verdict pass's own test time: a
    fixed 20 ms left most bundled tasks, and every task on the real-pytest path (pytest's start
    alone), without a coverage figure, and which ones depended on how loaded the machine was."""
    solution = "def work(n):\n    total = 0\n    for i in range(n):\n        total += i\n    return total\n"
    body = "".join(f"def test_{i}():\n    assert work(20000) == 199990000\n\n" for i in range(8))
    if runner == "pytest":
        body = "import pytest\n\n@pytest.mark.parametrize('n', [20000] * 8)\ndef test_n(n):\n    assert work(n) == 199990000\n"
    request = ExecRequest(
        files={"solution.py": solution},
        tests={"test_hidden.py": "from solution import work\n\n" + body},
        measure_coverage=True,
    )
    with LocalBackend(workers=1, preload=COVERAGE_PRELOAD) as backend:
        result = backend.execute(request)
    assert result.status is ExecStatus.PASSED and result.runner == runner
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    assert result.coverage["missing_lines"] == []


THREADED = (
    "import threading\n\n\ndef work(out):\n    out.append(1)\n\n\ndef run():\n    out = []\n"
    "    worker = threading.Thread(target=work, args=(out,))\n    worker.start()\n    worker.join()\n"
    "    return out\n"
)


def test_coverage_follows_the_programs_threads() -> None:
    """The program process starts only the tracer armed in the zygote (not coverage.py's start); lines
    run on a thread the program starts are still counted, as coverage.py counts them."""
    tests = "from solution import run\n\ndef test_run():\n    assert run() == [1]\n"
    request = ExecRequest(
        files={"solution.py": THREADED}, tests={"test_hidden.py": tests}, measure_coverage=True
    )
    with LocalBackend(workers=1, preload=("coverage",)) as backend:
        results = [backend.execute(request) for _ in range(2)]  # the second from the armed tracer
    for result in results:
        assert result.status is ExecStatus.PASSED
        assert result.coverage is not None and result.coverage["complete"]
        assert 5 in result.coverage["executed_lines"]  # `out.append(1)`, on the worker thread
        assert result.coverage["missing_lines"] == []


FORKS_AFTER_A_THREAD = """
import os
import threading


def probe():
    ready = threading.Event()
    lingering = threading.Thread(target=ready.wait, daemon=True)
    lingering.start()
    read_end, write_end = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.write(write_end, str(len(threading.enumerate())).encode())
        os._exit(0)
    os.waitpid(pid, 0)
    ready.set()
    lingering.join()
    same_id = threading.main_thread().native_id == threading.get_native_id()
    return int(os.read(read_end, 16)), same_id, threading.current_thread() is threading.main_thread()
"""


def test_threading_state_in_a_program_process_forked_from_a_zygote_with_threading() -> None:
    """The zygote of a coverage pool (threading loaded) skips threading's at-fork reset for its
    program processes; the program still sees itself as the main thread with its own native id,
    and a fork made by the program resets threading as usual (the child sees one thread)."""
    tests = "from solution import probe\n\ndef test_probe():\n    assert probe() == (1, True, True)\n"
    request = ExecRequest(files={"solution.py": FORKS_AFTER_A_THREAD}, tests={"test_hidden.py": tests})
    with LocalBackend(workers=1, preload=("coverage",)) as backend:
        results = [backend.execute(request) for _ in range(2)]
    assert [r.status for r in results] == [ExecStatus.PASSED] * 2, results[0].tests


def test_the_lean_tracer_is_used_with_this_coverage_version(tmp_path) -> None:
    """The zygote loads coverage.py's C tracer alone, never the coverage package (whose import
    doubles its heap, paid by every fork); when the tracer's module cannot be loaded so, coverage.py's
    own collector is used (correct, dearer per pass): this says when."""
    sys.path.insert(0, str(INSIDE_DIR))
    try:
        import coverage_probe

        tracer = coverage_probe.Tracer(str(tmp_path), "solution.py")
    finally:
        sys.path.remove(str(INSIDE_DIR))
    assert type(tracer.recorder).__name__ == "_LeanRecorder"
    recorder = tracer.recorder
    assert os.path.abspath(coverage_probe.__file__) in recorder.should_trace_cache  # decided beforehand
    # the raw data's packing is learnt from the stand-in's arcs; without it the tracer is never
    # stopped early (test_the_tracer_stops_once_every_line_and_branch_has_run)
    tracer.warm_import(str(tmp_path), "solution.py")
    assert tracer._bits in (20, 28)


def test_lines_around_a_call_back_into_the_test_are_covered(local_backend: LocalBackend) -> None:
    """A callback runs the program process's serving code inside a traced program frame; the
    figure keeps the lines before and after it (a tracer switched off and on there lost every arc:
    repo/http_router's reference read 0% in a review of this round's tracer changes)."""
    solution = (
        "def apply(function, value):\n    result = function(value)\n    if result > 0:\n"
        "        return result\n    return -result\n"
    )
    tests = (
        "from solution import apply\n\ndef test_positive():\n    assert apply(lambda v: v + 1, 1) == 2\n\n"
        "def test_negative():\n    assert apply(lambda v: v - 5, 1) == 4\n"
    )
    result = run(local_backend, solution, tests, measure_coverage=True, coverage_budget_s=30)
    assert result.status is ExecStatus.PASSED and result.coverage is not None
    assert result.coverage["executed_lines"] == [1, 2, 3, 4, 5] and result.coverage["missing_lines"] == []
    assert result.coverage["missing_branches"] == []


def test_a_branch_that_leaves_a_with_block_counts_as_taken(local_backend: LocalBackend) -> None:
    """Since 3.10 the exit from a `with` block is traced through the `with` line; coverage.py's report
    rewrites those arcs, and so do the harness and the program's early stop (falseflag 20, F20-3)."""
    solution = (
        "import threading\n\nLOCK = threading.Lock()\n\n\ndef clamp(x):\n    with LOCK:\n"
        "        if x > 10:\n            x = 10\n    return x\n"
    )
    tests = "from solution import clamp\n\ndef test_clamp():\n    assert clamp(20) == 10\n    assert clamp(3) == 3\n"
    result = run(local_backend, solution, tests, measure_coverage=True, coverage_budget_s=30)
    assert result.status is ExecStatus.PASSED and result.coverage is not None
    assert result.coverage["missing_lines"] == [] and result.coverage["missing_branches"] == []
    assert result.coverage["executed_branches"] == [[8, 9], [8, 10]]


def test_lines_run_in_a_program_thread_are_covered(local_backend: LocalBackend) -> None:
    """Each thread the program starts gets a tracer of its own, as with coverage.py's collector."""
    solution = (
        "import threading\n\n\ndef work(out):\n    if out is not None:\n        out.append(1)\n"
        "    else:\n        out = []\n\n\ndef run():\n    out = []\n"
        "    thread = threading.Thread(target=work, args=(out,))\n    thread.start()\n    thread.join()\n"
        "    return len(out)\n"
    )
    tests = "from solution import run\n\ndef test_run():\n    assert run() == 1\n"
    result = run(local_backend, solution, tests, measure_coverage=True, coverage_budget_s=30)
    assert result.status is ExecStatus.PASSED and result.coverage is not None
    assert result.coverage["executed_lines"] == [1, 4, 5, 6, 11, 12, 13, 14, 15, 16]
    assert result.coverage["missing_lines"] == [8] and result.coverage["executed_branches"] == [[5, 6]]


def test_the_coverage_pass_goes_on_in_the_verdict_pass_process(local_backend: LocalBackend) -> None:
    """A verdict process that had no child and used little memory runs the coverage pass itself (a
    fork, a start and an exit fewer per sample): the candidate's module runs again, in a new module
    object, under the tracer. The result's output is the verdict pass's alone: the program's
    streams point at /dev/null, and a copy of the old descriptor finds the pipe closed."""
    result = run(
        local_backend, IMPORTS_COUNTED, IMPORTS_COUNTED_TESTS, measure_coverage=True, timing_repeats=1
    )
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    assert line_of(IMPORTS_COUNTED, "'again'") in result.coverage["executed_lines"]
    assert line_of(IMPORTS_COUNTED, "'first'") in result.coverage["missing_lines"]
    assert result.stdout == "imported\ncalled\n"
    # the verdict pass's CPU time, read before the process went on, then the timing pass's own
    assert len(result.timings_s) == 2 and result.timings_s[0] == result.cpu_s > 0


# Refuses to be imported twice in one process: `builtins` keeps a mark across module objects.
ONCE_PER_PROCESS = (
    "import builtins\n\nassert not hasattr(builtins, 'imported_once')\nbuiltins.imported_once = True\n\n"
)
# Right only at its first import in a process (its test fails when run again in place).
FIRST_ONLY_TESTS = (
    "from solution import first_import\n\ndef test_it():\n    assert first_import() == 'first'\n"
)
# Creates a file at import, failing if it exists.
FILE_AT_IMPORT = "with open('made_at_import', 'x') as _handle:\n    _handle.write('1')\n\n"


@pytest.mark.parametrize(
    ("prefix", "tests"),
    [(ONCE_PER_PROCESS, IMPORTS_COUNTED_TESTS), ("", FIRST_ONLY_TESTS)],
    ids=["import-fails-again", "test-fails-again"],
)
def test_a_coverage_pass_that_stops_early_in_place_runs_again_in_a_fresh_process(
    local_backend: LocalBackend, prefix: str, tests: str
) -> None:
    """A correct program whose module cannot run twice in one process, or whose tests pass only at
    its first import, still gets its figure: the pass in place stops before its budget is spent,
    and the pass runs again in a fresh process."""
    solution = prefix + IMPORTS_COUNTED
    result = run(local_backend, solution, tests, measure_coverage=True)
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    assert line_of(solution, "'first'") in result.coverage["executed_lines"]


def test_the_coverage_pass_in_place_gets_the_programs_files_afresh(local_backend: LocalBackend) -> None:
    """The scratch files are made afresh for it, as for a new process: a file the verdict pass
    created is gone."""
    solution = FILE_AT_IMPORT + IMPORTS_COUNTED
    result = run(local_backend, solution, IMPORTS_COUNTED_TESTS, measure_coverage=True)
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    assert line_of(solution, "'again'") in result.coverage["executed_lines"]  # in place


# The hidden tests count, in the harness's own environment, the times their module was loaded in
# the run: a coverage pass that ran them again calls pick(1); one that served the verdict pass's
# requests again (remote.ReplayLog, program.op_replay) calls pick(0), as the verdict pass did.
PICK = "import time\n\n\ndef pick(loads):\n    if loads == 0:\n        return 'first'\n    return 'again'\n"
PICK_EXTRAS = (
    "\n\ndef apply(function):\n    return function(2)\n\n\ndef stamp():\n    return time.monotonic_ns()\n"
    "\n\ndef size(text):\n    return len(text)\n"
)


def _loads_counted_tests(extra: str = "") -> str:
    key = f"CODEGYM_TEST_LOADS_{uuid.uuid4().hex}"  # the harness serves run after run: one per test
    return (
        "import os\nfrom solution import apply, pick, size, stamp\n\n"
        f"LOADS = int(os.environ.get({key!r}, '0'))\nos.environ[{key!r}] = str(LOADS + 1)\n\n\n"
        "def test_pick():\n    assert pick(LOADS) in ('first', 'again')\n" + extra
    )


@pytest.mark.parametrize(
    ("extra_test", "replayed"),
    [
        ("", True),
        ("\n\ndef test_apply():\n    assert apply(lambda value: value + 1) == 3\n", False),
        ("\n\ndef test_stamp():\n    assert stamp() > 0\n", False),
        ("\n\ndef test_size():\n    assert size('x' * 9_000_000) == 9_000_000\n", False),
    ],
    ids=["replayed", "a-test-callable", "answers-differ", "too-large-to-keep"],
)
def test_the_coverage_pass_serves_the_verdict_passs_requests_again(
    local_backend: LocalBackend, extra_test: str, replayed: bool
) -> None:
    """The coverage pass does not run the tests again: the program serves the verdict pass's
    requests again, under the tracer, each checked against the answer it got then. The tests run
    again instead when that cannot be done: the program called a test's callable (no harness answers
    during a replay), an answer differs (here a clock's), or the requests are too large to keep."""
    solution = PICK + PICK_EXTRAS
    result = run(local_backend, solution, _loads_counted_tests(extra_test), measure_coverage=True)
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    first, again = line_of(solution, "'first'"), line_of(solution, "'again'")
    executed, missing = result.coverage["executed_lines"], result.coverage["missing_lines"]
    assert (first in executed, again in missing) == (replayed, replayed), result.coverage
    assert (again in executed, first in missing) == (not replayed, not replayed), result.coverage


# Rewrites a file of its own at import, to the same size: only fresh files show '0' again.
REWRITES_AT_IMPORT = (
    "with open('data.txt') as _handle:\n    FIRST = _handle.read() == '0'\n"
    "if FIRST:\n    with open('data.txt', 'w') as _handle:\n        _handle.write('1')\n"
    "    SEEN = 'fresh'\nelse:\n    SEEN = 'stale'\n\n\n"
)


def test_the_coverage_pass_in_place_sees_a_file_rewritten_to_the_same_size_afresh(
    local_backend: LocalBackend,
) -> None:
    """The mark keeps the scratch files only when the pass left them as they were made; a file
    rewritten in place to the same size (its change time moved) is made afresh."""
    solution = REWRITES_AT_IMPORT + IMPORTS_COUNTED
    result = run(
        local_backend,
        solution,
        IMPORTS_COUNTED_TESTS,
        measure_coverage=True,
        extra_files={"data.txt": "0"},
    )
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    assert line_of(solution, "'again'") in result.coverage["executed_lines"]  # in place
    assert line_of(solution, "'fresh'") in result.coverage["executed_lines"]
    assert line_of(solution, "'stale'") in result.coverage["missing_lines"]


CHILD_AT_IMPORT = "import os\n\nif os.fork() == 0:\n    os._exit(0)\nos.wait()\n"
MEMORY_AT_IMPORT = "KEPT = bytearray(160 * 1024 * 1024)\n"
THREAD_AT_IMPORT = (
    "import threading\nimport time\n\nthreading.Thread(target=time.sleep, args=(60,), daemon=True).start()\n"
)


@pytest.mark.parametrize(
    "prefix",
    [CHILD_AT_IMPORT, MEMORY_AT_IMPORT, THREAD_AT_IMPORT],
    ids=["had-a-child", "half-its-memory", "a-second-thread"],
)
def test_a_verdict_process_the_zygote_cannot_account_for_gets_a_fresh_coverage_process(
    local_backend: LocalBackend, prefix: str
) -> None:
    """A child's CPU time is known only once it is reaped, a second thread could race the pass's
    wipe, and a pass in place would have only the memory the verdict pass left: such a program's
    coverage pass runs in a new process, as before."""
    solution = prefix + IMPORTS_COUNTED
    limits = Limits(memory_mb=256)
    result = run(local_backend, solution, IMPORTS_COUNTED_TESTS, measure_coverage=True, limits=limits)
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage
    assert line_of(solution, "'first'") in result.coverage["executed_lines"]
    assert line_of(solution, "'again'") in result.coverage["missing_lines"]
    assert result.stdout == "imported\ncalled\n"


# fills /tmp at import, in every pass: the zygote makes a lazy tracer before it wipes the pass before
FILL_TMP = (
    "def _fill():\n    for number in range(64):\n        try:\n"
    "            with open(f'/tmp/fill{number}', 'wb') as handle:\n"
    "                handle.write(bytes(8 * 1024 * 1024))\n        except OSError:\n            return\n\n\n"
    "_fill()\n"
)


@pytest.mark.parametrize("preload", [(), ("coverage",)], ids=["lazy", "preloaded"])
def test_a_coverage_pool_never_loads_the_coverage_package_into_programs(preload: tuple[str, ...]) -> None:
    """Only the tracer's module, from an anonymous memory file (reviewed, F20-1/F20-2: a private
    file under /tmp failed on Docker's noexec /tmp, and a program that filled /tmp made a lazy
    zygote fall back to the whole package for its lifetime); both passes see no package."""
    request = ExecRequest(
        files={"solution.py": FILL_TMP + COVERAGE_PACKAGE_UNSEEN},
        tests={"test_hidden.py": COVERAGE_PACKAGE_TESTS},
        measure_coverage=True,
        coverage_budget_s=30,
    )
    with LocalBackend(workers=1, preload=preload) as backend:
        results = [backend.execute(request) for _ in range(2)]
    for result in results:
        assert result.status is ExecStatus.PASSED, result.tests
        assert result.coverage is not None and result.coverage["complete"], result.coverage


def test_a_program_can_use_coverage_py_itself_in_a_coverage_pass(local_backend: LocalBackend) -> None:
    """The zygote's tracer is a private load of coverage.py's C module (the module sets its types up
    once per loaded library): a program that imports coverage.py gets a working one of its own."""
    solution = (
        "import coverage\n\n\ndef measured():\n    cov = coverage.Coverage(data_file=None)\n"
        "    cov.start()\n    total = sum(range(3))\n    cov.stop()\n    return total\n"
    )
    tests = "from solution import measured\n\ndef test_it():\n    assert measured() == 3\n"
    result = run(local_backend, solution, tests, measure_coverage=True, coverage_budget_s=30)
    assert result.status is ExecStatus.PASSED, result.tests
    assert result.coverage is not None and result.coverage["complete"], result.coverage


def test_no_coverage_pass_for_a_program_that_failed_a_measured_test() -> None:
    """Such a pass would stop at that test and give no figure: it is not run. A failing test that is
    not measured does not stop it."""
    hidden = "from solution import sign\n\ndef test_positive():\n    assert sign(5) == 1\n"
    other = "from solution import sign\n\ndef test_zero():\n    assert sign(0) == 7\n"
    wrong = SIGN.replace("return 1", "return 2")
    with LocalBackend(workers=1) as backend:
        failing = backend.execute(
            ExecRequest(files={"solution.py": wrong}, tests={"test_hidden.py": hidden}, measure_coverage=True)
        )
        unmeasured_failure = backend.execute(
            ExecRequest(
                files={"solution.py": SIGN},
                tests={"test_hidden.py": hidden, "test_other.py": other},
                measure_coverage=True,
                measured_test_files=("test_hidden.py",),
            )
        )
    assert failing.status is ExecStatus.FAILED and failing.coverage is None
    assert unmeasured_failure.status is ExecStatus.FAILED
    assert unmeasured_failure.coverage is not None and unmeasured_failure.coverage["complete"]
    assert unmeasured_failure.coverage["executed_lines"] == [1, 2, 3]


@pytest.mark.parametrize(
    "source",
    [
        "def f(xs):\n    total = 0\n    for x in xs:\n        if x % 2:\n            total += x\n"
        "        elif x > 10:\n            total -= 1\n    return total\n",
        # branches into statements that span lines (red team round 15, R4: reported as never taken)
        "def f(xs):\n    if xs:\n        return (\n            len(xs)\n            + 1\n        )\n    return 0\n",
        "def f(xs):\n    if len(xs) > 2:\n        d = {\n            'a': xs[0],\n            'b': xs[1],\n"
        "        }\n        return d\n    return None\n",
        # a branch that leaves a `with` block: traced through the `with` line again since 3.10
        # (review round falseflag 20, F20-3: never counted as taken)
        "import threading\n\nLOCK = threading.Lock()\n\n\ndef f(xs):\n    total = 0\n    with LOCK:\n"
        "        for x in xs:\n            if x > 1:\n                total += x\n    return total\n",
    ],
    ids=["loop", "wrapped-return", "dict-display", "with-exit"],
)
@pytest.mark.parametrize("recorder", ["lean", "collector"])
def test_coverage_probe_agrees_with_coverage_py_reports(tmp_path, source: str, recorder: str) -> None:
    """The tracer reads coverage.py's raw data and the harness analyses the source; this pins both
    to coverage.py's own report, with the C tracer loaded alone and with coverage.py's collector."""
    import coverage

    sys.path.insert(0, str(INSIDE_DIR))
    import coverage_probe

    (tmp_path / "solution.py").write_text(source)
    sys.path.insert(0, str(tmp_path))
    try:
        tracer = coverage_probe.Tracer(str(tmp_path), "solution.py")
        if recorder == "collector":
            tracer.recorder = coverage_probe._CoverageRecorder(tracer.path)
        tracer.start()
        import solution

        solution.f([1, 2, 3])
        tracer.stop()
        statements, possible, multiline, fixers = coverage_probe.analyse(
            source, str(tmp_path / "solution.py")
        )
        ours = coverage_probe.report(tracer.raw_arcs(), statements, possible, multiline, fixers)
        reference = coverage.Coverage(data_file=None, branch=True, config_file=False)
        del sys.modules["solution"]
        reference.start()
        import solution as again

        again.f([1, 2, 3])
        reference.stop()
        reference.json_report(morfs=[str(tmp_path / "solution.py")], outfile=str(tmp_path / "r.json"))
        theirs = next(iter(json.loads((tmp_path / "r.json").read_text())["files"].values()))
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(INSIDE_DIR))
        sys.modules.pop("solution", None)
    for key in ("executed_lines", "missing_lines", "executed_branches", "missing_branches"):
        assert [list(x) if isinstance(x, tuple) else x for x in ours[key]] == theirs[key], key


PAUSED_SOURCE = (
    "def a():\n    return 1\n\n\ndef b():\n    return 2\n\n\ndef c():\n    return 3\n\n\n"
    "def outer(callback):\n    x = 1\n    callback()\n    return x + 1\n"
)


@pytest.mark.parametrize("recorder", ["lean", "collector"])
def test_a_paused_tracer_misses_only_what_ran_while_paused(tmp_path, recorder: str) -> None:
    """The program server pauses the tracer around its own codec work (program._untraced):
    what runs meanwhile is not counted; what runs before and after is, around a callback into the
    test as well, where the pause happens inside a call made from a traced frame (`outer`'s lines
    after its callback). coverage.py's own collector does not pause: it counts everything."""
    sys.path.insert(0, str(INSIDE_DIR))
    import coverage_probe

    sys.path.insert(0, str(tmp_path))
    try:
        tracer = coverage_probe.Tracer(str(tmp_path), "solution.py")
        if recorder == "collector":
            tracer.recorder = coverage_probe._CoverageRecorder(tracer.path)
        tracer.warm_import(str(tmp_path), "solution.py")  # as in the zygote: learns the data's packing
        (tmp_path / "solution.py").write_text(PAUSED_SOURCE)
        statements, possible, multiline, fixers = coverage_probe.analyse(
            PAUSED_SOURCE, str(tmp_path / "solution.py")
        )
        tracer.start()
        import solution

        solution.a()
        tracer.pause()
        solution.b()
        tracer.resume()
        solution.c()
        tracer.set_target(statements, possible, multiline, fixers)
        tracer.finish_if_complete()  # pauses for its own work, and goes on: not complete yet
        tracer.finish_if_complete()  # nothing new since: goes on all the same

        def callback() -> None:
            tracer.pause()
            solution.b()
            tracer.resume()

        solution.outer(callback)
        tracer.stop()
        report = coverage_probe.report(tracer.raw_arcs(), statements, possible, multiline, fixers)
    finally:
        sys.path.remove(str(tmp_path))
        sys.path.remove(str(INSIDE_DIR))
        sys.modules.pop("solution", None)
    if recorder == "lean":
        assert report["executed_lines"] == [1, 2, 5, 9, 10, 13, 14, 15, 16]
        assert report["missing_lines"] == [6]
    else:
        assert report["executed_lines"] == [1, 2, 5, 6, 9, 10, 13, 14, 15, 16]
        assert report["missing_lines"] == []


def test_return_types_are_recorded(local_backend: LocalBackend) -> None:
    solution = "def pick(x):\n    return [x] if x else None\n"
    tests = (
        "from solution import pick\n\ndef test_a():\n    assert pick(1) == [1]\n\ndef test_b():\n"
        "    assert pick(0) is None\n"
    )
    result = run(local_backend, solution, tests, entry_point="pick")
    assert result.status is ExecStatus.PASSED
    assert result.return_types == ("builtins.list", "builtins.NoneType")


def test_a_star_import_binds_an_entry_point_named_like_a_stdlib_module(local_backend: LocalBackend) -> None:
    """KodCode's tests reach the function through `from solution import *`; names that would shadow a
    stdlib module are not bound, but the task's entry point is (falseflag round 14, Q1: `trace`,
    `statistics` failed every test with NameError, the row's own solution included)."""
    solution = "import json\n\n\ndef statistics(xs):\n    return json.dumps(sum(xs))\n"
    tests = (
        "from solution import *\n\ndef test_sum():\n    assert statistics([1, 2]) == '3'\n\n"
        "def test_json_is_not_the_programs():\n    assert 'json' not in globals()\n"
    )
    result = run(local_backend, solution, tests, entry_point="statistics")
    assert result.status is ExecStatus.PASSED, result.tests


def test_timing_repeats(local_backend: LocalBackend) -> None:
    tests = "from solution import add\n\ndef test_ok():\n    assert add(2, 3) == 5\n"
    result = run(local_backend, ADD, tests, timing_repeats=5)
    assert len(result.timings_s) == 6 and all(t >= 0 for t in result.timings_s)  # verdict pass + 5
    failing = run(local_backend, ADD, ADD_TESTS, timing_repeats=3)
    assert failing.timings_s == ()  # only a program that passes is timed
    slow = "import time\ndef add(a, b):\n    t = time.process_time()\n    while time.process_time() - t < 0.2:\n        pass\n    return a + b\n"
    budgeted = run(local_backend, slow, tests, timing_repeats=10, timing_budget_s=0.3)
    assert 2 <= len(budgeted.timings_s) <= 3  # the verdict pass counts; repeats stop at the budget
    assert all(t >= 0.19 for t in budgeted.timings_s)  # measured from outside the program
    longer_than_budget = run(local_backend, slow, tests, timing_repeats=10, timing_budget_s=0.1)
    assert len(longer_than_budget.timings_s) == 1  # timed once, by the verdict pass


def test_timing_repeats_stop_once_a_sample_is_enough(local_backend: LocalBackend) -> None:
    """`timing_enough_s`: no repeat once a sample is at or below it (the caller's score is at its
    maximum); above it, the repeats run as usual."""
    tests = "from solution import add\n\ndef test_ok():\n    assert add(2, 3) == 5\n"
    quick = run(local_backend, ADD, tests, timing_repeats=4, timing_enough_s=5.0)
    assert quick.status is ExecStatus.PASSED and len(quick.timings_s) == 1  # the verdict pass sufficed
    busy = (
        "import time\ndef add(a, b):\n    t = time.process_time()\n    while time.process_time() - t < 0.02:\n"
        "        pass\n    return a + b\n"
    )
    slow = run(local_backend, busy, tests, timing_repeats=2, timing_enough_s=0.005, timing_budget_s=5.0)
    assert slow.status is ExecStatus.PASSED and len(slow.timings_s) == 3
    assert min(slow.timings_s) >= 0.019
    with pytest.raises(ValueError, match="timing_enough_s"):
        ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": tests}, timing_enough_s=-1.0)


def test_timing_samples_are_each_timing_passs_own(local_backend: LocalBackend) -> None:
    """A timing sample is its own pass's CPU time, never the coverage pass's before it (a traced
    program, several times slower). The worker used to file the account of the pass a spawn ended
    under the pass the spawn started: the first timing sample was the coverage pass's (a slowed
    HumanEval solution read 4.4 ms in its verdict pass, 9.4 ms in its "timing" one)."""
    tests = "from solution import add\n\ndef test_ok():\n    assert add(2, 3) == 5\n"
    # the branch never taken keeps the coverage figure short of complete: the tracer sees every turn
    looping = (
        "def add(a, b):\n    if a is None:\n        return 0\n    n = 0\n    for i in range(300_000):\n"
        "        n += i\n    return a + b\n"
    )
    result = run(
        local_backend,
        looping,
        tests,
        measure_coverage=True,
        coverage_budget_s=30,
        timing_repeats=2,
        timing_budget_s=10,
    )
    assert result.status is ExecStatus.PASSED and result.coverage is not None
    assert result.coverage.get("complete") is True  # the traced pass ran to its end
    assert len(result.timings_s) == 3  # the verdict pass and two timing passes
    assert max(result.timings_s) < 2.5 * min(result.timings_s), result.timings_s


def test_timing_counts_threads_and_child_processes(local_backend: LocalBackend) -> None:
    """CPU time is read from outside the program: work in a thread or in a child process counts, a
    child the program asked the kernel to reap at once (SIGCHLD ignored, SA_NOCLDWAIT) included."""
    tests = "from solution import work\n\ndef test_work():\n    assert work() == 1\n"
    spin = "def spin():\n    n = 0\n    for i in range(3_000_000):\n        n += i\n"
    programs = {
        "inline": spin + "def work():\n    spin()\n    return 1\n",
        "thread": "import threading\n"
        + spin
        + "def work():\n    t = threading.Thread(target=spin)\n    t.start()\n    t.join()\n    return 1\n",
        "child": "import os\n"
        + spin
        + "def work():\n    pid = os.fork()\n    if pid == 0:\n        spin()\n        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n    return 1\n",
        "orphan": "import os, time\n"
        + spin
        + "def work():\n    if os.fork() == 0:\n        if os.fork() == 0:\n            spin()\n        os._exit(0)\n"
        "    time.sleep(0.6)\n    return 1\n",
        # SIGCHLD ignored, or SA_NOCLDWAIT: the kernel would reap the child at once, unmeasured (red
        # team round 14, P1); the program's new SIGCHLD action takes no effect, the child stays waitable
        "auto-reaped": "import os, signal\n"
        + spin
        + "def work():\n    signal.signal(signal.SIGCHLD, signal.SIG_IGN)\n    pid = os.fork()\n"
        "    if pid == 0:\n        spin()\n        os._exit(0)\n    os.waitpid(pid, 0)\n"
        "    assert signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN\n    return 1\n",
        "nocldwait": "import ctypes, os\n" + spin + "class Action(ctypes.Structure):\n"
        "    _fields_ = [('handler', ctypes.c_void_p), ('mask', ctypes.c_ulong * 16),"
        " ('flags', ctypes.c_int), ('restorer', ctypes.c_void_p)]\n"
        "def work():\n    action = Action(None, (ctypes.c_ulong * 16)(), 2, None)  # SA_NOCLDWAIT\n"
        "    assert ctypes.CDLL(None).sigaction(17, ctypes.byref(action), None) == 0\n"
        "    pid = os.fork()\n    if pid == 0:\n        spin()\n        os._exit(0)\n"
        "    try:\n        os.waitpid(pid, 0)\n    except ChildProcessError:\n        pass\n    return 1\n",
    }
    timings = {}
    for name, program in programs.items():
        result = run(local_backend, program, tests, timing_repeats=1, timing_budget_s=10)
        assert result.status is ExecStatus.PASSED, (name, result.message)
        timings[name] = min(result.timings_s)
    for name in ("thread", "child", "orphan", "auto-reaped", "nocldwait"):
        assert timings[name] >= 0.5 * timings["inline"], timings


def test_a_coverage_run_times_a_verdict_pass_with_a_child_by_reaping_it(local_backend: LocalBackend) -> None:
    """With coverage measured, a verdict pass may end with its process going on (its CPU time read
    through the process CPU clock, which leaves out reaped children); one that had a child, forked or
    spawned (vfork and exec), is timed by reaping instead: the child's work counts."""
    tests = "from solution import work\n\ndef test_work():\n    assert work() == 1\n"
    spin = "def spin():\n    n = 0\n    for i in range(1_000_000):\n        n += i\n"
    spin_code = "n = 0\nfor i in range(1_000_000):\n    n += i\n"
    programs = {
        "inline": spin + "def work():\n    spin()\n    return 1\n",
        "child": "import os\n"
        + spin
        + "def work():\n    pid = os.fork()\n    if pid == 0:\n        spin()\n        os._exit(0)\n"
        "    os.waitpid(pid, 0)\n    return 1\n",
        "spawned": "import os, sys\n\n"
        f"def work():\n    pid = os.posix_spawn(sys.executable, [sys.executable, '-c', {spin_code!r}], {{}})\n"
        "    os.waitpid(pid, 0)\n    return 1\n",
    }
    timings = {}
    for name, program in programs.items():
        result = run(
            local_backend, program, tests, measure_coverage=True, timing_repeats=1, timing_budget_s=10
        )
        assert result.status is ExecStatus.PASSED, (name, result.message)
        timings[name] = min(result.timings_s)
    for name in ("child", "spawned"):
        assert timings[name] >= 0.5 * timings["inline"], timings


# Polls rather than `while not exits: signal.pause()`, which races even in a plain interpreter: a
# signal that lands between the check and the call leaves pause() waiting for another (about 1 in
# 1,000 runs on a loaded machine). A sleep is cut short by the signal and its handler runs then.
SIGCHLD_HANDLER = """
import os, signal, time

exits = []


def work():
    signal.signal(signal.SIGCHLD, lambda signum, frame: exits.append(signum))
    pid = os.fork()
    if pid == 0:
        os._exit(0)
    deadline = time.monotonic() + 3
    while not exits and time.monotonic() < deadline:
        time.sleep(0.01)
    os.waitpid(pid, 0)
    return 1 if exits else 0
"""

SIGCHLD_IGNORED = """
import os, signal


def work():
    signal.signal(signal.SIGCHLD, signal.SIG_IGN)
    for _ in range(3):
        pid = os.fork()
        if pid == 0:
            os._exit(0)
        os.waitpid(pid, 0)
    return 1 if signal.getsignal(signal.SIGCHLD) == signal.SIG_IGN else 0
"""


# red team 17, T3: a blocking read in C code was cut (EINTR) by the child's exit; a fresh program saw
# CPython's no-op handler, not SIG_DFL
SIGCHLD_C_READ = """
import ctypes, os, signal, threading, time


def work():
    assert signal.getsignal(signal.SIGCHLD) == signal.SIG_DFL
    libc = ctypes.CDLL(None, use_errno=True)
    r, w = os.pipe()
    pid = os.fork()
    if pid == 0:
        time.sleep(0.1)
        os._exit(0)
    threading.Timer(0.4, os.write, (w, b"x")).start()
    buffer = ctypes.create_string_buffer(1)
    count = libc.read(r, buffer, 1)
    os.waitpid(pid, 0)
    return count
"""


@pytest.mark.parametrize(
    "program", [SIGCHLD_HANDLER, SIGCHLD_IGNORED, SIGCHLD_C_READ], ids=["handler", "ignored", "c-read"]
)
def test_a_programs_sigchld_handler_runs_and_sig_ign_is_quiet(
    local_backend: LocalBackend, program: str
) -> None:
    """SIGCHLD stays caught by CPython's C handler in a program process (the filter keeps it so, see
    the auto-reaped case above): a handler the program sets runs (red team round 15, R1: it never ran,
    and `signal.pause()` hung), and SIG_IGN changes only CPython's table, with no report on stderr."""
    tests = "from solution import work\n\ndef test_work():\n    assert work() == 1\n"
    result = run(local_backend, program, tests, limits=Limits(timeout_s=5.0))
    assert result.status is ExecStatus.PASSED, (result.status, result.message, result.stderr)
    assert "race condition" not in result.stderr


MARKS_ITS_ARGUMENT = (
    "def work(store):\n"
    "    if store.get('seen'):\n"
    "        return 0  # the mark of an earlier pass: wrong, so that pass's timing is cut short\n"
    "    store['seen'] = True  # copied back into the test's own object when the call returns\n"
    "    return 1\n"
)


@pytest.mark.parametrize(
    ("tests", "files"),
    [
        ("STORE = {}\n\ndef test_work():\n    from solution import work\n    assert work(STORE) == 1\n", {}),
        (
            "import pytest\nSTORE = {}\n\n@pytest.mark.parametrize('n', [1])\n"
            "def test_work(n):\n    from solution import work\n    assert work(STORE) == n\n",
            {},
        ),
        (
            "from shared import STORE\n\ndef test_work():\n    from solution import work\n    assert work(STORE) == 1\n",
            {"shared.py": "STORE = {}\n"},
        ),
    ],
    ids=["test-module-object", "pytest-path", "repo-module-object"],
)
def test_nothing_a_program_leaves_in_the_tests_objects_reaches_a_later_pass(
    local_backend: LocalBackend, tests: str, files: dict[str, str]
) -> None:
    """A call's changes to its arguments are copied back into the test's objects; a module-level one
    would carry them from the verdict pass into the timing passes (a memo that makes a slow program
    look fast). Each measurement pass loads the tests, the repo and the proxy afresh."""
    result = run(
        local_backend, MARKS_ITS_ARGUMENT, tests, timing_repeats=2, timing_budget_s=10, extra_files=files
    )
    assert result.status is ExecStatus.PASSED, result.message
    assert len(result.timings_s) == 3, result.timings_s  # the verdict pass and both repeats: all complete


def test_batch_keeps_input_order_and_runs_concurrently(local_backend: LocalBackend) -> None:
    tests = "from solution import value\n\ndef test_value():\n    assert value() >= 0\n"
    requests = [
        ExecRequest(
            files={
                "solution.py": f"import time\ndef value():\n    time.sleep({0.3 if i % 2 else 0})\n"
                f"    return {i}\n"
            },
            tests={"test_hidden.py": tests},
            request_id=str(i),
        )
        for i in range(6)
    ]
    seen: list[int] = []
    results = local_backend.execute_many(requests, on_result=lambda index, _: seen.append(index))
    assert [r.status for r in results] == [ExecStatus.PASSED] * 6
    assert sorted(seen) == list(range(6))


def test_batches_sent_at_once_share_the_pools_threads() -> None:
    """Three batches at once (the CLI keeps three chunks in flight) run on the pool's own threads,
    one per request a worker holds, each batch's results in its input order; a batch sent from one
    of those threads (here from a result callback) runs on threads of its own instead of waiting
    for them."""
    tests = "from solution import value\n\ndef test_value():\n    assert value() % 2 == 0\n"

    def request(i: int) -> ExecRequest:
        return ExecRequest(
            files={"solution.py": f"def value():\n    return {i}\n"}, tests={"test_hidden.py": tests}
        )

    threads: set[str] = set()
    nested: list[ExecResult] = []
    first = threading.Lock()  # taken once, never given back: one nested batch, whoever comes first
    with LocalBackend(workers=2) as backend:

        def note(index: int, _result: ExecResult) -> None:
            threads.add(threading.current_thread().name)
            if index == 0 and first.acquire(blocking=False):
                nested.extend(backend.execute_many([request(98)]))

        def batch(offset: int) -> list[ExecResult]:
            return backend.execute_many([request(offset + i) for i in range(8)], on_result=note)

        with ThreadPoolExecutor(max_workers=3) as callers:
            batches = list(callers.map(batch, (0, 101, 200)))
    for offset, results in zip((0, 101, 200), batches, strict=True):
        expected = [ExecStatus.PASSED if (offset + i) % 2 == 0 else ExecStatus.FAILED for i in range(8)]
        assert [r.status for r in results] == expected
    assert len(threads) <= 2 * PIPELINE_DEPTH, threads
    assert all(name.startswith("codegym-pool-") for name in threads), threads
    assert [r.status for r in nested] == [ExecStatus.PASSED]


def _batch_with_the_first_worker_killed(
    workers: int, count: int, sleep_s: float, kill_after_s: float, then: int = 0
) -> tuple[list[ExecResult], int]:
    """`count` passing requests that each sleep `sleep_s`; the pool's first worker is killed from
    outside `kill_after_s` into the batch; then a batch of `then` more. The results of both batches
    and the pool's restarts."""
    tests = "from solution import value\n\ndef test_value():\n    assert value() == 1\n"
    slow = f"import time\ndef value():\n    time.sleep({sleep_s})\n    return 1\n"
    with LocalBackend(workers=workers) as backend:
        backend.pool.start()
        victim = backend.pool.describe()[0].pid

        def kill_soon() -> None:
            time.sleep(kill_after_s)
            os.kill(victim, 9)

        killer = threading.Thread(target=kill_soon)
        killer.start()
        batch = [
            ExecRequest(files={"solution.py": slow}, tests={"test_hidden.py": tests}, request_id=str(i))
            for i in range(count)
        ]
        results = backend.execute_many(batch)
        killer.join()
        if then:
            results += backend.execute_many(batch[:1] * then)
        return results, backend.pool.restarts


def test_a_worker_lost_mid_batch_costs_only_the_run_it_was_doing() -> None:
    """Killed from outside mid-batch: the run it was doing is retried once on a fresh worker (a
    fault during its run, not the program's, since it does not happen again), every other request
    is untouched, and the whole batch passes."""
    results, restarts = _batch_with_the_first_worker_killed(2, 12, sleep_s=0.3, kill_after_s=0.45)
    assert [r.status for r in results] == [ExecStatus.PASSED] * 12
    assert restarts == 1
    assert sorted(r.attempts for r in results) == [1] * 11 + [2]


def test_a_request_queued_behind_a_lost_run_is_sent_again_for_free() -> None:
    """A worker holds the next request while it runs one (pool.PIPELINE_DEPTH). Killed from outside
    during the first run, it never started the second: that one runs on the fresh worker as a first
    attempt (neither a fault of its program nor an infrastructure failure); the first is retried."""
    results, restarts = _batch_with_the_first_worker_killed(1, 2, sleep_s=0.4, kill_after_s=0.25)
    assert [r.status for r in results] == [ExecStatus.PASSED] * 2
    assert restarts == 1
    # the two dispatch threads race to the worker, so either request may be the one it was running
    assert sorted(r.attempts for r in results) == [1, 2]


def test_a_replaced_worker_takes_every_request_slot_of_the_old_one() -> None:
    """A worker killed under its only request is replaced once; the request slot it still had free
    then leads to the fresh worker (not to a second replacement that would kill the first)."""
    results, restarts = _batch_with_the_first_worker_killed(1, 1, sleep_s=0.4, kill_after_s=0.25, then=3)
    assert [r.status for r in results] == [ExecStatus.PASSED] * 4
    assert [r.attempts for r in results] == [2, 1, 1, 1]
    assert restarts == 1


def test_requests_spread_over_the_workers_before_any_holds_two() -> None:
    """Two requests on two workers run one on each (each worker's programs have a uid of their
    own), not both on the first worker that came up, which could hold both."""
    solution = "import os\n\ndef uid():\n    return os.getuid()\n"
    tests = "from solution import uid\n\ndef test_uid():\n    assert uid() == 0\n"
    with LocalBackend(workers=2) as backend:
        backend.pool.start()
        for _ in range(3):
            results = backend.execute_many(
                [ExecRequest(files={"solution.py": solution}, tests={"test_hidden.py": tests})] * 2
            )
            messages = [r.tests[0].message for r in results]
            assert len(set(messages)) == 2, messages


def test_async_execute(local_backend: LocalBackend) -> None:
    tests = "from solution import add\n\ndef test_ok():\n    assert add(2, 3) == 5\n"
    request = ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": tests})

    async def both() -> list[ExecResult]:
        return list(await asyncio.gather(local_backend.aexecute(request), local_backend.aexecute(request)))

    assert [r.status for r in asyncio.run(both())] == [ExecStatus.PASSED, ExecStatus.PASSED]


def test_worker_that_cannot_start_gives_sandbox_error() -> None:
    from codegym.sandbox.pool import WorkerStartError

    pool = WorkerPool(1, lambda slot: ["false"], backend_name="broken", start_timeout_s=5, max_retries=1)
    request = ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": ADD_TESTS})
    try:
        with pytest.raises(WorkerStartError, match="did not start"):
            pool.start()
        result = pool.execute(request)
    finally:
        pool.close()
    assert result.status is ExecStatus.SANDBOX_ERROR
    assert "did not start" in result.message


def test_work_starts_when_the_first_worker_is_up(tmp_path: Path) -> None:
    """A lazily started pool does not wait for its slowest worker: here the second one cannot come
    up until the first has finished a run (then it fails), and the pool judges with the one it has."""
    release = tmp_path / "release"
    waits_then_fails = ["sh", "-c", f"while [ ! -e {release} ]; do sleep 0.05; done; exit 3"]
    with LocalBackend(workers=2) as backend:
        real_launch = backend.pool.launch
        backend.pool.launch = lambda slot: real_launch(slot) if slot == 0 else waits_then_fails
        results: list[ExecResult] = []
        passing = "from solution import add\n\ndef test_add():\n    assert add(1, 2) == 3\n"
        judging = threading.Thread(target=lambda: results.append(run(backend, ADD, passing)))
        judging.start()
        judging.join(timeout=120)
        finished_first = not judging.is_alive()
        release.touch()
        judging.join()
        assert finished_first, "the run waited for the worker that was still starting"
        assert results[0].status is ExecStatus.PASSED
        assert [w.slot for w in backend.pool.describe()] == [0]
        assert run(backend, ADD, passing).status is ExecStatus.PASSED


def test_broken_worker_is_a_sandbox_error_after_bounded_retries() -> None:
    """A pool whose workers die right after starting: every retry fails, so the result is ours."""
    script = (
        "import sys, json, struct\nbody = json.dumps({'op': 'hello', 'ok': True, 'info': {}}).encode()\n"
        "sys.stdout.buffer.write(struct.pack('>I', len(body)) + body)\nsys.stdout.flush()\n"
    )
    pool = WorkerPool(1, lambda slot: [sys.executable, "-c", script], backend_name="flaky", max_retries=2)
    try:
        result = pool.execute(ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": ADD_TESTS}))
    finally:
        pool.close()
    assert result.status in (ExecStatus.SANDBOX_ERROR, ExecStatus.ERROR)
    assert result.attempts >= 2


def test_worker_killed_from_outside_is_replaced_and_the_run_retried() -> None:
    tests = "from solution import slow\n\ndef test_slow():\n    assert slow() == 1\n"
    solution = "import time\ndef slow():\n    time.sleep(1.5)\n    return 1\n"
    with LocalBackend(workers=1) as backend:
        backend.start()
        victim = backend.pool.describe()[0].pid

        def kill_soon() -> None:
            time.sleep(0.5)
            os.kill(victim, 9)

        threading.Thread(target=kill_soon).start()
        result = run(backend, solution, tests)
        assert result.status is ExecStatus.PASSED
        assert result.attempts == 2
        assert backend.pool.restarts == 1


@pytest.mark.parametrize("entry", ["boot.py", "worker.py"])
def test_worker_refuses_to_run_in_the_hosts_pid_namespace(entry: str) -> None:
    """Through either way in: boot.py (what the backends run) and worker.py as a script."""
    config = json.dumps({"host_pid_namespace": os.readlink("/proc/self/ns/pid")})
    completed = subprocess.run(
        [sys.executable, "-I", str(INSIDE_DIR / entry), config],
        capture_output=True,
        timeout=30,
        input=b"",
    )
    body = completed.stdout[4:]
    hello = json.loads(body)
    assert hello["ok"] is False and "private PID namespace" in hello["error"]


def test_request_paths_must_stay_inside_scratch() -> None:
    with pytest.raises(ValueError, match="inside scratch"):
        ExecRequest(files={"../evil.py": "", "solution.py": ADD}, tests={"test_hidden.py": ADD_TESTS})
    with pytest.raises(ValueError, match="solution_path"):
        ExecRequest(files={"other.py": ADD}, tests={"test_hidden.py": ADD_TESTS})
    with pytest.raises(ValueError, match="timeout_s"):
        Limits(timeout_s=0)


def test_result_round_trips_through_dict(local_backend: LocalBackend) -> None:
    result = run(local_backend, ADD, ADD_TESTS)
    assert ExecResult.from_dict(json.loads(json.dumps(result.to_dict()))) == result


def test_a_coverage_pass_cut_by_its_budget_reports_no_figure(local_backend: LocalBackend) -> None:
    # traced, it takes far longer than the budget plus ten verdict passes (0.1 s + 10 x a few ms)
    solution = (
        "import sys, time\n\n\ndef spin(n):\n    if sys.gettrace() is not None:\n        time.sleep(1.5)\n"
        "    total = 0\n    for i in range(n):\n        total += i\n    return total\n\n\ndef other():\n    return 1\n"
    )
    tests = (
        "from solution import spin, other\n\ndef test_a():\n    assert spin(2_000) > 0\n\n"
        "def test_b():\n    assert other() == 1\n"
    )
    result = run(local_backend, solution, tests, measure_coverage=True, coverage_budget_s=0.1)
    assert result.status is ExecStatus.PASSED  # the verdict pass is never cut short
    assert result.coverage == {"complete": False}
    full = run(local_backend, solution, tests, measure_coverage=True, coverage_budget_s=30)
    assert full.coverage is not None and full.coverage["complete"] is True
    assert 14 in full.coverage["executed_lines"]


# while traced, step(2) sleeps far past the coverage budget; step(0) and step(1) cover every line and
# branch of the first version, never all of the second's (its `return -1` is never reached)
STEP = (
    "import sys\nimport time\n\n\ndef step(n):\n    if n and sys.gettrace() is not None:\n"
    "        time.sleep(0 if n == 1 else 1.5)\n    return n\n"
)
STEP_WITH_DEAD_END = STEP + "\n\ndef never():\n    return -1\n"
# the same with a statement over three lines: the tracer reports its inner line (red team round 15, R4)
STEP_WRAPPED = STEP.replace("    return n\n", "    return (\n        n\n    )\n")
STEP_TESTS = (
    "from solution import step\n\ndef test_steps():\n"
    "    assert step(0) == 0\n    assert step(1) == 1\n    assert step(2) == 2\n"
)


@pytest.mark.parametrize("runner", ["fast", "pytest"])
@pytest.mark.parametrize("program", [STEP, STEP_WRAPPED], ids=["one-line", "wrapped"])
def test_the_tracer_stops_once_every_line_and_branch_has_run(
    local_backend: LocalBackend, runner: str, program: str
) -> None:
    """The harness tells the coverage pass's program what a full figure takes (the analysed statements
    and branch arcs); once all have run, the figure cannot change and the program stops its tracer:
    step(2) then runs untraced and the pass ends in its budget. A program that never completes its
    lines stays traced to the end (and here is cut by the budget)."""
    tests = STEP_TESTS
    if runner == "pytest":  # parametrize: the real-pytest path, the same calls in the same order
        tests = (
            "import pytest\nfrom solution import step\n\n@pytest.mark.parametrize('n', [0, 1, 2])\n"
            "def test_step(n):\n    assert step(n) == n\n"
        )
    complete = run(local_backend, program, tests, measure_coverage=True, coverage_budget_s=0.1)
    assert complete.status is ExecStatus.PASSED and complete.runner == runner
    assert complete.coverage is not None and complete.coverage["complete"], complete.coverage
    assert complete.coverage["missing_lines"] == [] and complete.coverage["missing_branches"] == []
    assert complete.coverage["executed_lines"] == [1, 2, 5, 6, 7, 8]
    partial = run(local_backend, STEP_WITH_DEAD_END, tests, measure_coverage=True, coverage_budget_s=0.1)
    assert partial.status is ExecStatus.PASSED and partial.coverage == {"complete": False}


@pytest.mark.parametrize(
    "solution",
    [
        pytest.param(
            "import signal\nsignal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})\n\n\n"
            "def spin(n):\n    return sum(range(n))\n\n\ndef other():\n    return 1\n",
            id="blocks-signals",
        ),
        pytest.param(
            "import sys\nsys.settrace(None)\nsys.setprofile(lambda *a: None)\n\n\n"
            "def spin(n):\n    return sum(range(n))\n\n\ndef other():\n    return 1\n",
            id="replaces-tracers",
        ),
    ],
)
def test_programs_fighting_the_measurement_keep_their_verdict(
    local_backend: LocalBackend, solution: str
) -> None:
    tests = "from solution import spin, other\n\ndef test_all():\n    assert spin(300) > 0\n    assert other() == 1\n"
    result = run(local_backend, solution, tests, measure_coverage=True, timing_repeats=2)
    assert result.status is ExecStatus.PASSED, result.message
    assert [t.outcome for t in result.tests] == [TestOutcome.PASSED]
    assert result.flags == ()


def test_host_compiled_tests_are_used_only_where_they_fit() -> None:
    from codegym.sandbox.inside import testprep
    from codegym.sandbox.local import TESTS_DIR
    from codegym.sandbox.precompile import HostTestCompiler

    request = ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": ADD_TESTS})
    compiler = HostTestCompiler(TESTS_DIR)
    wire = compiler.wire_for(request)
    assert compiler.wire_for(request) is wire  # once per distinct test set
    prepared = testprep.from_wire(wire, TESTS_DIR)
    assert prepared is not None and prepared.runner == "fast"
    assert prepared.compiled[0][3].co_filename == f"{TESTS_DIR}/test_hidden.py"
    assert testprep.from_wire(wire, "/elsewhere/tests") is None  # compiled for another path
    assert testprep.from_wire({**wire, "magic": "00000000"}, TESTS_DIR) is None  # other Python
    broken = compiler.wire_for(
        ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": "def test_x(:\n"})
    )
    assert broken["error"].startswith("SyntaxError in test_hidden.py line 1")


def test_syntax_error_in_the_tests_is_reported(local_backend: LocalBackend) -> None:
    result = run(local_backend, ADD, "def test_x(:\n    pass\n")
    assert result.status is ExecStatus.ERROR and "SyntaxError in test_hidden.py" in result.message


@pytest.mark.parametrize("runner", ["fast", "pytest"])
def test_gated_test_files_run_only_after_a_failure(local_backend: LocalBackend, runner: str) -> None:
    hidden = "from solution import add\n\ndef test_hidden():\n    assert add(2, 3) == 5\n"
    visible = "from solution import add\n\ndef test_visible():\n    assert add(1, 1) == 2\n"

    def judged(solution: str) -> ExecResult:
        request = ExecRequest(
            files={"solution.py": solution},
            tests={"test_hidden.py": hidden, "test_visible.py": visible},
            test_runner=runner,
            measured_test_files=("test_hidden.py",),
            gated_test_files=("test_visible.py",),
            timing_repeats=1,
        )
        return local_backend.execute(request)

    passing = judged(ADD)
    assert passing.status is ExecStatus.PASSED
    assert [t.test_id.rpartition("::")[2] for t in passing.tests] == ["test_hidden"]
    assert len(passing.timings_s) == 2  # the verdict pass ran exactly the measured tests: a sample
    hardcoded = judged("def add(a, b):\n    return 2\n")  # the visible answer only
    outcomes = {t.test_id.rpartition("::")[2]: t.outcome.value for t in hardcoded.tests}
    assert hardcoded.status is ExecStatus.FAILED
    assert outcomes == {"test_hidden": "failed", "test_visible": "passed"}
    assert hardcoded.timings_s == ()
    # the suite is a typed field of each result, not read off a test id's prefix
    assert [t.suite for t in hardcoded.hidden_tests] == ["hidden"]
    assert [t.suite for t in hardcoded.visible_tests] == ["visible"]


def test_gated_test_files_are_validated() -> None:
    with pytest.raises(ValueError, match="gated_test_files"):
        ExecRequest(files={"solution.py": ADD}, tests={"t.py": ADD_TESTS}, gated_test_files=("t.py",))
    with pytest.raises(ValueError, match="gated_test_files"):
        ExecRequest(
            files={"solution.py": ADD},
            tests={"t.py": ADD_TESTS, "v.py": ADD_TESTS},
            measured_test_files=("v.py",),
            gated_test_files=("v.py",),
        )


def test_the_sandbox_starts_whatever_path_reached_the_interpreter(tmp_path: Path) -> None:
    """A virtualenv reached through a symlink inside a hidden folder (as under a home directory):
    the sandbox mounts the real interpreter, standard library and packages, not the link."""
    hidden = tmp_path / ".hidden"
    hidden.mkdir()
    venv = Path(sys.prefix)
    (hidden / "venv").symlink_to(venv, target_is_directory=True)
    python = hidden / "venv" / "bin" / Path(sys.executable).name
    script = (
        "from codegym.sandbox.local import LocalBackend\n"
        "from codegym.sandbox.types import ExecRequest\n"
        "with LocalBackend(workers=1) as backend:\n"
        "    result = backend.execute(ExecRequest(files={'solution.py': 'def f():\\n    return 1\\n'},"
        " tests={'test_f.py': 'from solution import f\\ndef test_f():\\n    assert f() == 1\\n'}))\n"
        "print(result.status.value, result.message)\n"
    )
    done = subprocess.run(
        [str(python), "-c", script], capture_output=True, text=True, timeout=120, cwd=REPO_ROOT
    )
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.startswith("passed"), done.stdout + done.stderr[-1000:]


def test_descriptors_past_fd_setsize_still_work() -> None:
    """With hundreds of workers (`sandbox info --workers 400`) a worker's pipe gets a descriptor number
    above 1024, which select() cannot watch; the host waits on it with poll()."""
    import resource

    soft, hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    if hard != resource.RLIM_INFINITY and hard < 1400:
        pytest.skip(f"the descriptor limit ({hard}) is too low to reach past 1024")
    resource.setrlimit(resource.RLIMIT_NOFILE, (max(soft, 1400), hard))
    filler = [os.open(os.devnull, os.O_RDONLY) for _ in range(1100)]
    try:
        with LocalBackend(workers=1) as backend:
            result = backend.execute(
                ExecRequest(
                    files={"solution.py": "def f():\n    return 1\n"},
                    tests={"test_f.py": "from solution import f\ndef test_f():\n    assert f() == 1\n"},
                )
            )
        assert result.status is ExecStatus.PASSED, result.message
    finally:
        for fd in filler:
            os.close(fd)
        resource.setrlimit(resource.RLIMIT_NOFILE, (soft, hard))


def test_what_the_zygote_learns_of_stdlib_types_is_what_a_program_works_out() -> None:
    """The zygote describes the types of what the preloaded modules export (program.learn_types),
    so that a program exporting `List` (from its prompt's `from typing import List`) reads the
    description instead of working it out: the same description, found without a dir() of its own."""
    script = """
import sys
sys.path.insert(0, sys.argv[1])
import collections, typing
import program
names = ("List", "Dict", "Optional", "Callable", "Any", "Tuple")
values = [getattr(typing, name) for name in names] + [collections.Counter, collections.OrderedDict]
fresh = program.ProgramServer(None, "m", "/")
expected = [fresh._describe(value) for value in values]
program.learn_types(["typing", "collections"])
learned = program.ProgramServer(None, "m", "/")
assert [learned._describe(value) for value in values] == expected
assert not learned.methods_of and not learned.chains, (learned.methods_of, learned.chains)
"""
    completed = subprocess.run(
        [sys.executable, "-I", "-S", "-c", script, str(INSIDE_DIR)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert completed.returncode == 0, completed.stderr
