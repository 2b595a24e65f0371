"""The in-sandbox test runner (stdlib only; pytest and coverage are used when present).

It runs in the execution process, after the worker has isolated it and dropped its privileges,
and reports each test's outcome as JSON lines on a dedicated pipe (the verdict channel) — never on
stdout/stderr, and never through the exit code. Every record carries a per-execution token the
program does not know in advance; the worker ignores (and flags) records without it, and requires
an `end` record, so printing "passed", exiting early (sys.exit, os._exit, atexit, excepthook) or
killing the parent cannot produce a passing verdict.

Two paths:
* fast: test modules are compiled from memory (the hidden tests are never written where the program
  could read them), plain `test_*` functions and `Test*` classes are called directly — pytest-
  compatible for asserts, `pytest.raises` and `pytest.approx`, at fork speed.
* pytest: real pytest, for tests that need fixtures, parametrize, marks or conftest files.

Equality asserts (`assert a == b`) are rewritten so that a truthy comparison decided by an `__eq__`
defined in the program's own code, between values of different types (e.g. an object whose `__eq__`
always returns True), fails the test and raises the `untrusted_eq` flag.

Not protected: a program that deliberately inspects this process's memory (gc, frames) to steal the
token and forge framed records. In-process tests cannot be made tamper-proof; the reward's hacking
detectors (return types against the reference, visible/hidden gaps) are the second line.
"""

import ast
import base64
import functools
import importlib
import importlib.util
import json
import marshal
import os
import reprlib
import signal
import sys
import time
import traceback
import types

# Bound before any untrusted code runs, so monkeypatching these modules cannot change the runner.
_os_write = os.write
_json_dumps = json.dumps
_perf_counter = time.perf_counter
_process_time = time.process_time
_FunctionType = types.FunctionType
_ModuleType = types.ModuleType
_BaseException = BaseException
_AssertionError = AssertionError
_MemoryError = MemoryError
_compile = compile
_exec = exec
_type = type
_isinstance = isinstance
_getattr = getattr
_signal = signal.signal
_setitimer = signal.setitimer
_SIGALRM, _ITIMER_REAL, _SIG_DFL = signal.SIGALRM, signal.ITIMER_REAL, signal.SIG_DFL

_repr = reprlib.Repr()
_repr.maxstring = 200
_repr.maxother = 200
_repr.maxlist = 20
_repr.maxdict = 20

MAX_MESSAGE_CHARS = 2000
EQ_CHECK_MAX_ITEMS = 10000
EQ_HELPER_NAME = "__codegym_assert_eq__"


def safe_repr(value):
    try:
        return _repr.repr(value)
    except _BaseException:
        return f"<unrepresentable {_type(value).__name__}>"


class VerdictChannel:
    """Writes token-stamped JSON lines to the verdict pipe."""

    def __init__(self, fd, token):
        self._fd = fd
        self._token = token

    def emit(self, kind, **payload):
        payload["t"] = self._token
        payload["k"] = kind
        data = (_json_dumps(payload, default=str) + "\n").encode("utf-8", "replace")
        view = memoryview(data)
        while view:
            written = _os_write(self._fd, view)
            view = view[written:]


def _rewrite_assert(node):
    """`assert a == b[, msg]` -> `__codegym_assert_eq__(a, b, lambda: msg)` (line numbers kept)."""
    test = node.test
    if not (_isinstance(test, ast.Compare) and len(test.ops) == 1 and _isinstance(test.ops[0], ast.Eq)):
        return node
    # new nodes take the assert's location; the operands keep theirs (no tree walk: it costs ms)
    message = node.msg if node.msg is not None else ast.copy_location(ast.Constant(value=None), node)
    arguments = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    thunk = ast.copy_location(ast.Lambda(args=arguments, body=message), node)
    helper = ast.copy_location(ast.Name(id=EQ_HELPER_NAME, ctx=ast.Load()), node)
    call = ast.copy_location(
        ast.Call(func=helper, args=[test.left, test.comparators[0], thunk], keywords=[]), node
    )
    return ast.copy_location(ast.Expr(value=call), node)


_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def rewrite_equality_asserts(tree):
    """Rewrites every equality assert in place. Asserts are statements, so only statement lists are
    walked — an order of magnitude fewer nodes than a full NodeTransformer pass."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in _STATEMENT_LISTS:
            statements = _getattr(node, field, None)
            if not _isinstance(statements, list):
                continue
            for index, statement in enumerate(statements):
                if _isinstance(statement, ast.Assert):
                    statements[index] = _rewrite_assert(statement)
                elif _isinstance(statement, ast.AST):
                    stack.append(statement)
    return tree


class EqualityGuard:
    """Decides whether a truthy `a == b` was decided by code the program wrote."""

    def __init__(self, scratch_dir, trusted_files, on_untrusted):
        self.scratch_dir = os.path.realpath(scratch_dir) + os.sep
        self.trusted_files = {os.path.realpath(os.path.join(scratch_dir, f)) for f in trusted_files}
        self.on_untrusted = on_untrusted
        self._verdicts = {}

    def _eq_is_untrusted(self, klass):
        cached = self._verdicts.get(klass)
        if cached is not None:
            return cached
        eq = None
        for base in _getattr(klass, "__mro__", ()):
            if "__eq__" in base.__dict__:
                eq = base.__dict__["__eq__"]
                break
        code = _getattr(eq, "__code__", None)
        if code is None:
            verdict = False  # implemented in C: builtins and extension types
        else:
            filename = code.co_filename
            if filename.startswith("<"):
                # exec-generated: trusted only for dataclasses of trusted modules
                verdict = "__create_fn__" not in _getattr(eq, "__qualname__", "")
                if not verdict:
                    module = sys.modules.get(_getattr(klass, "__module__", ""), None)
                    verdict = self._file_is_untrusted(_getattr(module, "__file__", None) or "<unknown>")
            else:
                verdict = self._file_is_untrusted(filename)
        self._verdicts[klass] = verdict
        return verdict

    def _file_is_untrusted(self, filename):
        if filename.startswith("<"):
            return True
        real = os.path.realpath(filename)
        return real.startswith(self.scratch_dir) and real not in self.trusted_files

    def find_untrusted(self, left, right, depth=0):
        left_type, right_type = _type(left), _type(right)
        if left_type is not right_type:
            for klass in (left_type, right_type):
                if self._eq_is_untrusted(klass):
                    return klass
            return None
        if depth >= 6:
            return None
        if left_type in (list, tuple):
            for index, (x, y) in enumerate(zip(left, right, strict=False)):
                if index >= EQ_CHECK_MAX_ITEMS:
                    break
                found = self.find_untrusted(x, y, depth + 1)
                if found is not None:
                    return found
        elif left_type is dict:
            for index, key in enumerate(left):
                if index >= EQ_CHECK_MAX_ITEMS:
                    break
                if key in right:
                    found = self.find_untrusted(left[key], right[key], depth + 1)
                    if found is not None:
                        return found
        return None

    def assert_eq(self, left, right, message_thunk):
        # `not ==`, never `!=`: the verdict must rest on __eq__, the method a hostile object overrides
        if not (left == right):  # noqa: SIM201
            message = message_thunk()
            raise _AssertionError(
                message if message is not None else f"{safe_repr(left)} != {safe_repr(right)}"
            )
        try:
            culprit = self.find_untrusted(left, right)
        except _BaseException as exc:
            culprit = exc.__class__
        if culprit is not None:
            self.on_untrusted(culprit)
            raise _AssertionError(
                "equality was decided by {}.__eq__, defined by the program, between values of "
                "different types".format(_getattr(culprit, "__qualname__", "?"))
            )


_SETUP_HOOKS = ("setup_module", "teardown_module", "setup_function", "teardown_function")


def _test_needs_pytest(node):
    if node.name in _SETUP_HOOKS:
        return True
    if not node.name.startswith("test"):
        return False
    if node.decorator_list or _isinstance(node, ast.AsyncFunctionDef):
        return True
    params = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
    return bool(params or node.args.vararg or node.args.kwarg)


def needs_pytest(test_sources, trees=None):
    """True when the tests use what only real pytest provides (fixtures, parametrize, marks).
    Test functions live at module level or in `Test*` classes, so only those are looked at."""
    for filename, source in test_sources.items():
        if os.path.basename(filename) == "conftest.py":
            return True
        tree = (trees or {}).get(filename)
        if tree is None:
            try:
                tree = ast.parse(source)
            except SyntaxError:
                return False  # the fast path reports the syntax error
        for node in tree.body:
            if _isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _test_needs_pytest(node):
                return True
            if _isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                if node.decorator_list:
                    return True
                for member in node.body:
                    is_function = _isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
                    if is_function and _test_needs_pytest(member):
                        return True
    return False


def _format_exception(exc, scratch_dir, test_files):
    """`Type: message` plus the traceback frames of the program's files. Frames of test files
    keep only `file:line`, so hidden test source never leaks into feedback."""
    message = f"{exc.__class__.__name__}: {_safe_str(exc)}"
    frames = []
    try:
        for frame in traceback.extract_tb(exc.__traceback__):
            filename = frame.filename
            if not filename.startswith(scratch_dir):
                continue
            relative = filename[len(scratch_dir) :].lstrip("/")
            if relative in test_files:
                frames.append(f"{relative}:{frame.lineno}")
            else:
                frames.append(f'File "{relative}", line {frame.lineno}, in {frame.name}\n    {frame.line}')
    except _BaseException:
        pass
    return message[:MAX_MESSAGE_CHARS], "\n".join(frames)[-MAX_MESSAGE_CHARS:]


def _safe_str(exc):
    try:
        return str(exc)[:MAX_MESSAGE_CHARS]
    except _BaseException:
        return "<unprintable>"


def _outcome_for(exc):
    if _isinstance(exc, _AssertionError):
        return "failed"
    if _isinstance(exc, _MemoryError):
        return "memory"
    return "error"


class FastRunner:
    def __init__(self, request, scratch_dir, channel, guard):
        self.request = request
        self.scratch_dir = scratch_dir
        self.channel = channel
        self.guard = guard
        self.test_files = set(request["tests"])
        self.assert_eq = guard.assert_eq  # one bound method, so tampering is detectable by identity
        self.modules = []

    def tampered(self):
        return any(module.__dict__.get(EQ_HELPER_NAME) is not self.assert_eq for module in self.modules)

    def load(self, compiled):
        """Execute the compiled test modules (which import the program); return [(id, callable)]."""
        collected = []
        for filename, path, module_name, code in compiled:
            module = _ModuleType(module_name)
            module.__file__ = path
            module.__dict__[EQ_HELPER_NAME] = self.assert_eq
            self.modules.append(module)
            _exec(code, module.__dict__)
            collected.extend(self._collect(module, filename, path))
        return collected

    @staticmethod
    def _collect(module, filename, path):
        found = []
        for name, obj in list(module.__dict__.items()):
            if (
                name.startswith("test")
                and _isinstance(obj, _FunctionType)
                and obj.__code__.co_filename == path
            ):
                found.append((f"{filename}::{name}", obj))
            elif name.startswith("Test") and _isinstance(obj, type) and obj.__module__ == module.__name__:
                if "__init__" in obj.__dict__:
                    continue
                for method_name, method in list(obj.__dict__.items()):
                    if method_name.startswith("test") and _isinstance(method, _FunctionType):
                        found.append((f"{filename}::{name}::{method_name}", _method_runner(obj, method_name)))
        return found


def _method_runner(klass, method_name):
    def run():
        instance = klass()
        setup = _getattr(instance, "setup_method", None)
        if setup is not None:
            setup(_getattr(instance, method_name))
        try:
            _getattr(instance, method_name)()
        finally:
            teardown = _getattr(instance, "teardown_method", None)
            if teardown is not None:
                teardown(_getattr(instance, method_name))

    return run


def _code_of(func):
    return _getattr(func, "__code__", None)


def run_fast(request, scratch_dir, channel, guard, compiled, probe, analysis=None):
    """Verdict pass (untraced, also the first timing sample), then — when asked — a coverage pass
    and timing repeats, each within a budget so one slow program cannot make judging slow."""
    runner = FastRunner(request, scratch_dir, channel, guard)
    coverage = probe if request.get("measure_coverage") else None
    if coverage is not None:
        coverage.start()  # module-level lines run at import: trace the import itself
    returns = ReturnTypeRecorder()
    try:
        returns.install(request)
        tests = runner.load(compiled)
    except _BaseException as exc:
        message, frames = _format_exception(exc, scratch_dir, runner.test_files)
        channel.emit("collect_error", message=message, traceback=frames, outcome=_outcome_for(exc))
        return
    finally:
        if coverage is not None:
            coverage.stop()
    channel.emit("begin", tests=[test_id for test_id, _ in tests], runner="fast")
    if not tests:
        return
    measured_files = set(request.get("measured_test_files") or ()) or runner.test_files
    measured = [func for test_id, func in tests if test_id.split("::")[0] in measured_files]
    snapshots = [_code_of(func) for _, func in tests]
    verdict_cpu = 0.0
    for (test_id, func), snapshot in zip(tests, snapshots, strict=True):
        started, cpu_started = _perf_counter(), _process_time()
        outcome, message, frames = "passed", "", ""
        try:
            func()
        except _BaseException as exc:
            outcome = _outcome_for(exc)
            message, frames = _format_exception(exc, scratch_dir, runner.test_files)
            if _isinstance(exc, SystemExit):
                channel.emit("flag", name="exit_in_test")
        duration = _perf_counter() - started
        if test_id.split("::")[0] in measured_files:
            verdict_cpu += _process_time() - cpu_started
        if _code_of(func) is not snapshot or runner.tampered():
            outcome, message = "error", "the test function was modified while the tests ran"
            channel.emit("flag", name="test_tampered")
        channel.emit(
            "result", id=test_id, outcome=outcome, duration=duration, message=message, traceback=frames
        )
    channel.emit("tests_done")
    channel.emit("returns", types=returns.types())
    if coverage is not None:
        budget = float(request.get("coverage_budget_s") or COVERAGE_BUDGET_S)
        coverage.start()
        complete = _run_within(measured, budget)
        coverage.stop()
        channel.emit("coverage", complete=complete, **coverage.report(request, scratch_dir, analysis))
    repeats = int(request.get("timing_repeats") or 0)
    if repeats > 0:
        budget = float(request.get("timing_budget_s") or TIMING_BUDGET_S)
        extra = _time_repeats(measured, repeats, budget, spent=verdict_cpu)
        channel.emit("timing", cpu_s=[verdict_cpu, *extra])


COVERAGE_BUDGET_S = 0.02
TIMING_BUDGET_S = 0.1


class _BudgetSpent(BaseException):
    """Raised into the running test by the coverage pass's alarm."""


def _run_within(functions, budget_s):
    """Run the tests (failures included) until they are done or `budget_s` of wall time has passed;
    True when all ran. Tracing slows Python code several-fold and one test can run long (HumanEval
    has a single `check`), so an alarm interrupts the test itself; it re-fires every few ms in case
    the program swallows it. A program that blocks or takes SIGALRM only makes the pass run longer."""
    rang = []

    def on_alarm(signum, frame):
        rang.append(True)
        _setitimer(_ITIMER_REAL, 0.005)
        raise _BudgetSpent

    previous = _signal(_SIGALRM, on_alarm)
    complete = False
    try:
        _setitimer(_ITIMER_REAL, budget_s)
        for func in functions:
            if rang:
                break
            try:
                func()
            except _BudgetSpent:
                break
            except _BaseException:
                pass  # its verdict was taken in the verdict pass
        else:
            complete = not rang
    except _BudgetSpent:
        pass
    finally:
        _disarm(previous)
    return complete


def _disarm(previous_handler):
    """Stop the alarm and restore the handler, even if the alarm fires while doing so."""
    while True:
        try:
            _setitimer(_ITIMER_REAL, 0)
            _signal(_SIGALRM, _SIG_DFL if previous_handler is None else previous_handler)
            return
        except _BudgetSpent:
            continue


def _call_all(functions):
    """Call each test, ignoring how it ends: its verdict was taken in the verdict pass."""
    for func in functions:
        try:  # noqa: SIM105 - contextlib is the program's to monkeypatch
            func()
        except _BaseException:
            pass


def _time_repeats(functions, repeats, budget_s, spent=0.0):
    """CPU seconds of the measured tests per repeat (failures included), for at most `repeats`
    repeats and while the timing total (`spent` so far: the verdict pass) stays under `budget_s`;
    the caller takes the minimum. Tests longer than the budget are timed once: at that length
    sub-millisecond noise does not matter, and a repeat would double the cost of judging them."""
    timings = []
    for _ in range(repeats):
        if spent > budget_s:
            break
        started = _process_time()
        _call_all(functions)
        timings.append(_process_time() - started)
        spent += timings[-1]
    return timings


class ReturnTypeRecorder:
    """Wraps the solution's entry-point function to record the types it returns, so the reward can
    compare them with the reference's (objects that fake equality show up as foreign types)."""

    MAX_TYPES = 32

    def __init__(self):
        self._types = {}

    def install(self, request):
        entry_point = request.get("entry_point")
        if not entry_point:
            return
        module_name = os.path.splitext(request["solution_path"])[0].replace("/", ".")
        module = importlib.import_module(module_name)
        original = _getattr(module, entry_point, None)
        if not _isinstance(original, _FunctionType):
            return
        seen = self._types

        @functools.wraps(original)
        def recorded(*args, **kwargs):
            result = original(*args, **kwargs)
            if len(seen) < ReturnTypeRecorder.MAX_TYPES:
                seen[_type(result)] = None
            return result

        setattr(module, entry_point, recorded)

    def types(self):
        names = []
        for klass in self._types:
            try:
                names.append(f"{klass.__module__}.{klass.__qualname__}")
            except _BaseException:
                names.append("?")
        return names


class CoverageProbe:
    """coverage.py's tracer for the solution file: created and warmed up once in the worker (its
    start-up costs tens of milliseconds), started per run in the forked child, read without a
    SQLite flush, and analysed with coverage.py's own parser (statements, possible arcs)."""

    def __init__(self, scratch_dir, solution_path):
        import warnings

        import coverage
        from coverage.parser import PythonParser

        self._parser_class = PythonParser
        # Only the solution file is traced: the tests' own lines would cost time and mean nothing.
        self.cov = coverage.Coverage(
            data_file=None, branch=True, include=[os.path.join(scratch_dir, solution_path)], config_file=False
        )
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            self.cov.start()
            self.cov.stop()
            self.cov.get_data()
            # the parser imports and caches lazily: pay for that once here, not in every child
            sample = "import os\n\ndef f(x):\n    if x:\n        return 1\n    return [y for y in x]\n"
            warm = PythonParser(text=sample)
            warm.parse_source()
            warm.arcs()
            warm.exit_counts()
        self._running = False

    def warm_import(self, scratch_dir, solution_path):
        """Import a stand-in module at the solution's own path under the tracer, then remove every
        trace of it. Run paths are fixed per worker, so the import machinery's and the tracer's
        first-use work for that path happens once here rather than in every child (~6 ms each)."""
        module_name = os.path.splitext(solution_path)[0].replace("/", ".")
        parts = module_name.split(".")
        for depth in range(1, len(parts)):
            package = os.path.join(scratch_dir, *parts[:depth])
            os.makedirs(package, exist_ok=True)
            with open(os.path.join(package, "__init__.py"), "w", encoding="utf-8"):
                pass
        os.makedirs(scratch_dir, exist_ok=True)
        path = os.path.join(scratch_dir, solution_path)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write("import math\n\n\ndef stand_in(x):\n    return math.floor(x)\n")
        sys.path.insert(0, scratch_dir)
        try:
            self.start()
            importlib.import_module(module_name).stand_in(1.5)
        finally:
            self.stop()
            sys.path.remove(scratch_dir)
            for depth in range(1, len(parts) + 1):
                sys.modules.pop(".".join(parts[:depth]), None)
            data = _getattr(_getattr(self.cov, "_collector", None), "data", None)
            if _isinstance(data, dict):
                data.pop(path, None)  # the stand-in's arcs are not the program's

    def start(self):
        self.cov.start()
        self._running = True

    def stop(self):
        if self._running:
            self.cov.stop()
            self._running = False

    def executed_arcs(self, path, line_count):
        """Executed arcs, read from coverage.py's raw tracer data (skipping a SQLite flush). The
        C tracer packs an arc into one int — two line numbers of 28 bits (20 before coverage 7.12)
        plus two sign bits; the width whose decoding stays inside the file is the right one, else
        coverage.py's own (slower) data API decides."""
        collector = _getattr(self.cov, "_collector", None)
        raw = _getattr(collector, "data", {}).get(path) if collector is not None else None
        if raw is None:
            return set(self.cov.get_data().arcs(path) or ())
        items = list(raw)
        arcs = {item for item in items if _isinstance(item, tuple)}
        packed = [item for item in items if not _isinstance(item, tuple)]
        for bits in (28, 20):
            mask = (1 << bits) - 1
            decoded = set()
            for item in packed:
                first, second = item & mask, (item >> bits) & mask
                decoded.add(
                    (
                        -first if item >> (2 * bits) & 1 else first,
                        -second if item >> (2 * bits + 1) & 1 else second,
                    )
                )
            if all(abs(a) <= line_count and abs(b) <= line_count for a, b in decoded):
                return arcs | decoded
        return set(self.cov.get_data().arcs(path) or ())

    def analyse(self, request, scratch_dir):
        """Statements and possible branch arcs of the solution, by coverage.py's parser. The worker
        calls this before forking (it is several times slower in a freshly forked child)."""
        path = os.path.join(scratch_dir, request["solution_path"])
        parser = self._parser_class(text=request["files"][request["solution_path"]], filename=path)
        parser.parse_source()
        branch_lines = {line for line, exits in parser.exit_counts().items() if exits > 1}
        return set(parser.statements), {arc for arc in parser.arcs() if arc[0] in branch_lines}

    def report(self, request, scratch_dir, analysis=None):
        path = os.path.join(scratch_dir, request["solution_path"])
        statements, possible = analysis if analysis is not None else self.analyse(request, scratch_dir)
        source = request["files"][request["solution_path"]]
        executed = self.executed_arcs(path, source.count("\n") + 1)
        executed_lines = {line for arc in executed for line in arc if line > 0} & statements
        return {
            "executed_lines": sorted(executed_lines),
            "missing_lines": sorted(statements - executed_lines),
            "executed_branches": sorted(possible & executed),
            "missing_branches": sorted(possible - executed),
        }


def probe_for(request, scratch_dir, probe):
    """The worker's warmed probe, or a fresh one (slow) when coverage was not preloaded."""
    if not request.get("measure_coverage"):
        return None
    if probe is not None:
        return probe
    try:
        return CoverageProbe(scratch_dir, request["solution_path"])
    except ImportError:
        return None


class _PytestReporter:
    """pytest plugin that forwards outcomes to the verdict channel."""

    def __init__(self, channel):
        self.channel = channel
        self.reported = set()

    def pytest_collection_finish(self, session):
        self.channel.emit("begin", tests=[item.nodeid for item in session.items], runner="pytest")

    def pytest_collectreport(self, report):
        if report.failed:
            message = _trim(str(report.longrepr))
            outcome = "memory" if "MemoryError" in message else "error"
            self.channel.emit("collect_error", message=message, traceback="", outcome=outcome)

    def pytest_runtest_logreport(self, report):
        if report.nodeid in self.reported or not (report.when == "call" or report.failed or report.skipped):
            return
        self.reported.add(report.nodeid)
        message = ""
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"
        else:
            crash = _getattr(report.longrepr, "reprcrash", None)
            message = _trim(crash.message if crash is not None else str(report.longrepr))
            outcome = "failed" if report.when == "call" else "error"
            if message.startswith("MemoryError"):
                outcome = "memory"
        self.channel.emit(
            "result",
            id=report.nodeid,
            outcome=outcome,
            duration=report.duration,
            message=message,
            traceback="",
        )


def _trim(text):
    return (text or "")[:MAX_MESSAGE_CHARS]


GUARD_MODULE = "__codegym_guard__"


def run_pytest(request, scratch_dir, channel, guard, probe):
    import pytest

    guard_module = _ModuleType(GUARD_MODULE)
    guard_module.assert_eq = guard.assert_eq
    sys.modules[GUARD_MODULE] = guard_module
    header = f"from {GUARD_MODULE} import assert_eq as {EQ_HELPER_NAME}\n"
    paths = []
    for filename, source in request["tests"].items():
        path = os.path.join(scratch_dir, filename)
        os.makedirs(os.path.dirname(path), exist_ok=True)
        with open(path, "w", encoding="utf-8") as handle:
            handle.write(header + ast.unparse(rewrite_equality_asserts(ast.parse(source))))
        if os.path.basename(filename) != "conftest.py":
            paths.append(path)
    if probe is not None:
        probe.start()
    try:
        pytest.main(
            ["-q", "-p", "no:cacheprovider", "--rootdir", scratch_dir, "-o", "python_files=*.py", *paths],
            plugins=[_PytestReporter(channel)],
        )
        channel.emit("tests_done")
    finally:
        if probe is not None:
            probe.stop()
            channel.emit("coverage", **probe.report(request, scratch_dir))


class PreparedTests:
    """The runner choice and, for the fast runner, the rewritten and compiled test modules."""

    __slots__ = ("compiled", "error", "runner")

    def __init__(self, runner, compiled, error):
        self.runner = runner
        self.compiled = compiled
        self.error = error


def prepared_to_wire(prepared):
    """A prepared test set as JSON-safe data: the host compiles once per distinct test set and every
    worker (whose interpreter has the same bytecode magic) loads the code instead of compiling."""
    modules = None
    if prepared.compiled is not None:
        modules = [
            [f, path, name, base64.b64encode(marshal.dumps(code)).decode("ascii")]
            for f, path, name, code in prepared.compiled
        ]
    return {
        "magic": importlib.util.MAGIC_NUMBER.hex(),
        "runner": prepared.runner,
        "modules": modules,
        "error": prepared.error,
    }


def prepared_from_wire(wire, scratch_dir):
    """The host's prepared tests, or None when they were made for another interpreter or path."""
    if not wire or wire.get("magic") != importlib.util.MAGIC_NUMBER.hex():
        return None
    modules = wire.get("modules")
    compiled = None
    if modules is not None:
        compiled = []
        for filename, path, name, blob in modules:
            if os.path.dirname(path) != scratch_dir.rstrip("/") and not path.startswith(scratch_dir + "/"):
                return None
            compiled.append((filename, path, name, marshal.loads(base64.b64decode(blob))))
    return PreparedTests(wire.get("runner") or "fast", compiled, wire.get("error"))


class TestPreparer:
    """Compiles test modules once per distinct source (in the worker, before forking): RL batches
    judge many programs against the same tests, and parsing/compiling them is most of a fast run."""

    def __init__(self, max_entries=512):
        self.max_entries = max_entries
        self._cache = {}

    def prepare(self, tests, choice, scratch_dir):
        key = (scratch_dir, choice or "auto", tuple(sorted(tests.items())))
        prepared = self._cache.pop(key, None)
        if prepared is None:
            prepared = self._prepare(tests, choice or "auto", scratch_dir)
        self._cache[key] = prepared  # re-inserted: dicts keep insertion order, so this is an LRU
        if len(self._cache) > self.max_entries:
            del self._cache[next(iter(self._cache))]
        return prepared

    @staticmethod
    def _prepare(tests, choice, scratch_dir):
        trees = {}
        for filename, source in tests.items():
            try:
                trees[filename] = ast.parse(source, filename=os.path.join(scratch_dir, filename))
            except SyntaxError as exc:
                if choice == "pytest":
                    continue  # pytest reports it as a collection error
                return PreparedTests("fast", None, f"SyntaxError in {filename} line {exc.lineno}: {exc.msg}")
        if choice == "auto":
            choice = "pytest" if needs_pytest(tests, trees) else "fast"
        if choice != "fast":
            return PreparedTests(choice, None, None)
        compiled = []
        for filename, tree in trees.items():
            path = os.path.join(scratch_dir, filename)
            code = _compile(rewrite_equality_asserts(tree), path, "exec")
            compiled.append((filename, path, os.path.splitext(filename)[0].replace("/", "."), code))
        return PreparedTests("fast", compiled, None)


def run(request, scratch_dir, channel, on_flag, prepared=None, probe=None, analysis=None):
    """Run the request's tests in this process and report on `channel`; the caller emits `end`."""
    sys.path.insert(0, scratch_dir)
    trusted = [f for f in request["files"] if f != request["solution_path"]]
    guard = EqualityGuard(scratch_dir, trusted, lambda klass: on_flag("untrusted_eq"))
    if prepared is None:
        prepared = TestPreparer._prepare(request["tests"], request.get("test_runner") or "auto", scratch_dir)
    if prepared.error:
        channel.emit("collect_error", message=prepared.error, traceback="", outcome="error")
        return
    choice = prepared.runner
    if choice == "pytest":
        try:
            import pytest  # noqa: F401
        except ImportError:
            channel.emit(
                "collect_error",
                message="these tests need pytest, which the sandbox lacks",
                traceback="",
                outcome="error",
            )
            return
        run_pytest(request, scratch_dir, channel, guard, probe_for(request, scratch_dir, probe))
    else:
        run_fast(
            request,
            scratch_dir,
            channel,
            guard,
            prepared.compiled,
            probe_for(request, scratch_dir, probe),
            analysis,
        )
