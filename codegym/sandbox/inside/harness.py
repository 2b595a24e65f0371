"""The trusted harness: runs a request's tests against the program process and decides every outcome.

Forked by the worker when it starts (and again after a run that timed out, overflowed its output
or faulted), it drops to its own uid (never the program's), makes itself non-dumpable and keeps only
its channel to the worker; it then serves run after run, forgetting each run's tests, modules and
proxies before the next (the program never shares its process, so nothing it did can wait there).
It holds the tests — hidden and visible — in memory (the real-pytest path writes them into a
directory only its uid can read), executes them in this process, and sees the candidate only
through proxies (remote.py) over a pipe pair to a program process that the zygote started. It is
the only writer of the verdict: it streams each test's outcome to the worker, which assembles the
result.

Passes, each with fresh scratch files and a fresh program process (but a coverage pass, which may go
on in the verdict pass's process):
* verdict — every test, the request's gated files (the reward's visible tests) only once another
  test did not pass; its outcomes are the verdict (and, when it ran exactly the measured tests, its
  CPU time is the first timing sample);
* coverage — the measured (hidden) tests with coverage.py's tracer in the program process, cut off
  after `coverage_budget_s` plus COVERAGE_SLOWDOWN times the verdict pass's own test time of wall
  time, at most COVERAGE_MAX_S (a tracer slows a program a few times; scaled so, the cut depends on
  the program, not on how loaded the machine is; capped so, a task whose tests run for seconds gets
  no figure rather than seconds more of tracing) or at a test that does not pass (a cut pass
  contributes no figure); so only for a program that passed every measured test in the verdict
  pass. The program is told the statements and branch arcs a full figure takes and stops tracing
  once all have run (the figure is final then), so loops after that run untraced. It runs in the
  verdict pass's own process when the zygote can still account for that (zygote._mark_pass: no
  process or thread made since it started, at most half the memory limit used): the candidate's
  module runs again there, in a new module object, under the tracer, with the standard streams on
  /dev/null (a fork, a start and an exit fewer per sample); what the program kept from its verdict
  pass can only bend this figure, which it could bend anyway, and a pass there that stops before
  its budget is spent runs again in a fresh process (_coverage_pass). When the verdict pass ran the
  measured tests alone and the program never called back into the harness, the tests do not run
  again: the program serves the verdict pass's requests again (remote.ReplayLog, program.op_replay),
  each answer checked against its first, until the figure is final; an answer that differs sends
  the pass to a fresh process, with the tests;
* timing — the measured tests again, while the CPU time of all samples stays under
  `timing_budget_s` and no sample is at or below `timing_enough_s`, up to `timing_repeats` times.
  The program's CPU time is measured from outside it by the zygote (every thread and child
  process), never by a clock the program can touch.
"""

import _signal
import functools
import os
import signal
import sys
import time
import traceback
import types

import caserun
import osutil
import remote
import testprep
import wire

# The modules of the standard-library values that cross by value (wire.STDLIB_TUPLES, pure paths):
# imported here, once, so decoding finds their classes without ever importing what a program names.
for _name in (*wire.STDLIB_TUPLE_MODULES, "pathlib"):
    __import__(_name)
wire.use_program_paths()

MAX_MESSAGE_CHARS = 2000
FLUSH_S = 0.02
COVERAGE_SLOWDOWN = 10.0  # the coverage pass may take this many verdict passes on top of its budget,
COVERAGE_MAX_S = 1.0  # but never more: a task whose tests run long gets no coverage figure, cheaply
DEADLINE_MARGIN_S = 0.05


class HarnessFault(Exception):
    """Our own failure (not the program's): the worker reports it and the run is retried."""


def assert_eq(left, right, message_thunk):
    """`assert left == right` with a failure message of values (never the test's source)."""
    if not (left == right):  # noqa: SIM201 - the verdict rests on plain data's own __eq__
        message = message_thunk()
        if message is None:
            message = f"{remote.short_repr(left)} != {remote.short_repr(right)}"
            for side in (left, right):
                if isinstance(side, remote.Remote):
                    message += (
                        f" (a {side._label} object stays in the program: objects of the program's"
                        " classes compare by identity here, never by their own __eq__ (a program"
                        " object cannot decide equality); return plain data)"
                    )
                    break
        raise AssertionError(message)


def make_star_import(entry_point):
    def star_import(module_name, level, namespace):
        """`from m import *` in a test. For the program's module: bind its public names (its `__all__`
        when it has one) except those that would shadow a builtin or a stdlib module (unless it is the
        task's entry point: a KodCode task's function may be called `trace` or `statistics`), or
        anything the test module already bound."""
        import builtins
        import importlib

        package = namespace.get("__package__") or None
        module = importlib.import_module("." * level + module_name if level else module_name, package)
        declared = getattr(module, "__all__", None)
        names = list(declared) if declared is not None else [n for n in vars(module) if not n.startswith("_")]
        program = isinstance(module, remote.RemoteModule)
        for name in names:
            if not isinstance(name, str) or name.startswith("__"):
                continue
            if program and (
                name in namespace
                or (hasattr(builtins, name) and name != entry_point)
                or (name.partition(".")[0] in sys.stdlib_module_names and name != entry_point)
                or name in ("pytest", "_pytest", "pluggy")
            ):
                continue
            namespace[name] = getattr(module, name)

    return star_import


class Harness:
    def __init__(self, request, layout, control, prepared):
        self.request = request
        self.layout = layout
        self.control = control
        self.prepared = prepared
        solution = request["solution_path"]
        self.module_name = os.path.splitext(solution)[0].replace("/", ".")
        self.session = remote.Session(self.module_name, layout["repo"], request.get("entry_point"))
        self.module = remote.RemoteModule(self.session, self.module_name)
        self.test_files = set(request["tests"])
        self.measured_files = set(request.get("measured_test_files") or ()) or set(self.test_files)
        self.gated_files = set(request.get("gated_test_files") or ()) & self.test_files
        if self.gated_files == self.test_files:
            self.gated_files = set()
        self.files_run = self.test_files - self.gated_files
        self.program_lost = None
        self.exit_flagged = False
        self.baseline_modules = None  # the modules loaded before this run (set by run_one)
        self.verdict_tests_s = 0.0  # wall time of the verdict pass's tests (before any gated ones)
        self.replay = None  # the verdict pass's requests and answers, for the coverage pass
        self.pass_number = 0
        self.deadline = float("inf")
        self._queue = []
        self._sending = False
        self._flushed = time.monotonic()

    # -- channel to the worker ---------------------------------------------------------------
    def emit(self, record_kind, /, **payload):
        """Queue a record for the worker; queued records go out at least every FLUSH_S, and before
        anything that waits (a record lost to a deadline kill is at most that old)."""
        payload["k"] = record_kind
        self._queue.append(payload)
        now = time.monotonic()
        if now - self._flushed >= FLUSH_S or record_kind in ("end", "runner_error"):
            self.flush()

    def flush(self):
        if self._queue and not self._sending:
            queue, self._queue = self._queue, []
            self._sending = True
            try:
                osutil.send_message(self.control, {"k": "batch", "records": queue})
            finally:
                self._sending = False
        self._flushed = time.monotonic()

    def flush_before(self, deadline):
        """Send what is queued shortly before the worker's deadline kills us (the alarm interrupts a
        wait on the program; nothing the program does can block or see it)."""
        # _signal's own function: signal.signal's enum conversions cost a run ~7% of its harness CPU
        _signal.signal(signal.SIGALRM, lambda *_: self.flush())
        remaining = deadline - time.monotonic() - DEADLINE_MARGIN_S
        signal.setitimer(signal.ITIMER_REAL, max(0.001, remaining))

    def _ask(self, record_kind, /, **payload):
        self.emit(record_kind, **payload)
        self.flush()
        reply, fds = osutil.receive_message(self.control)
        if reply is None:
            raise HarnessFault("the worker closed the harness channel")
        return reply, fds

    def spawn(self, kind, coverage=False, standby=False):
        """A fresh program process for a pass; it becomes the session's current connection. With
        `standby`, the process holds a coverage tracer, unstarted, for a coverage pass in place."""
        self.pass_number += 1
        reply, fds = self._ask("spawn", kind=kind, coverage=coverage, standby=standby)
        if reply.get("pid") is None or len(fds) != 2:
            for fd in fds:
                os.close(fd)
            raise HarnessFault(f"no program process for the {kind} pass: {reply.get('error')}")
        connection = remote.connect(fds[0], fds[1], self.session, reply["pid"])
        self.session.connection = connection
        return connection

    def spawn_case_process(self, fresh=True):
        """A fresh program process that runs the program's file as `__main__` once per case it is
        sent (mainrun.serve_cases); returns our end of its socket. `fresh` false keeps the scratch
        files of the previous pass (the same program, restarted after a case ended its process)."""
        self.pass_number += 1
        reply, fds = self._ask("spawn", kind="cases", main=True, fresh=fresh)
        if reply.get("pid") is None or len(fds) != 1:
            for fd in fds:
                os.close(fd)
            raise HarnessFault(f"no program process for the cases: {reply.get('error')}")
        return fds[0]

    def mark_pass(self, next_kind, timed=False):
        """End the pass but not its program process, which goes on with the `next_kind` pass when
        the zygote can account for it (see zygote._mark_pass): (stats, whether it goes on)."""
        reply, fds = self._ask("mark_pass", timed=timed, next=next_kind)
        for fd in fds:
            os.close(fd)
        return reply.get("stats") or {}, reply.get("continued") is True

    def end_pass(self, timed=False, complete=True):
        """Close the pass's program process; the worker ends the pass and returns its accounting."""
        self._drop_connection()
        reply, fds = self._ask("end_pass", timed=timed, complete=complete)
        for fd in fds:
            os.close(fd)
        return reply.get("stats") or {}

    # -- the run -----------------------------------------------------------------------------
    def run(self):
        self._install_module()
        if self.request.get("cases"):
            caserun.CaseRunner(self, self.request["cases"]).run(self.deadline)
            return
        connection = self.spawn("verdict", standby=bool(self.request.get("measure_coverage")))
        if self.request.get("measure_coverage"):
            connection.log = remote.ReplayLog()
        try:
            exports = connection.hello()
        except BaseException as exc:
            self._import_failed(exc)
            self.end_pass()
            return
        self.module._codegym_bind(exports)
        if self.prepared.error:
            self.emit("collect_error", message=self.prepared.error, traceback="", outcome="error")
            self.end_pass()
            return
        main_files = self.test_files - self.gated_files
        started = time.monotonic()
        if self.prepared.runner == "pytest":
            tests = None
            self._pytest_pass(main_files, report=True)
            self.verdict_tests_s = time.monotonic() - started
            if self._gated_tests_needed():
                self.files_run = self.test_files
                self._pytest_pass(self.gated_files, report=True, more=True)
        else:
            tests = self._load_fast(main_files)
            if tests is None:
                self.end_pass()
                return
            self.emit("begin", tests=[test_id for test_id, _, _ in tests], runner="fast")
            self._run_tests(tests, report=True)
            self.verdict_tests_s = time.monotonic() - started
            if self._gated_tests_needed():
                self.files_run = self.test_files
                gated = self._load_fast(self.gated_files)
                if gated is None:
                    self.end_pass()
                    return
                self.emit("begin", tests=[test_id for test_id, _, _ in gated], runner="fast", more=True)
                self._run_tests(gated, report=True)
                tests = tests + gated
        self.emit("tests_done")
        self.emit("returns", types=list(self.session.return_types))
        all_passed = self.all_passed
        if self.program_lost is not None:
            return
        # a measured test that failed here would end the coverage pass there, cut (no figure)
        measure_coverage = bool(self.request.get("measure_coverage")) and self._measured_passed()
        measure_time = bool(self.request.get("timing_repeats")) and bool(all_passed)
        if not (measure_coverage or measure_time):
            return  # the worker ends the only pass (and accounts for it) when the run ends
        measured_alone = self.measured_files == self.files_run
        verdict_is_sample = measured_alone and bool(all_passed)
        continued = False
        connection = self.session.connection
        log = connection.log if connection is not None else None
        if connection is not None:
            connection.log = None
        # the verdict pass's requests, when they came from the measured tests alone
        if log is not None and log.usable and measured_alone:
            self.replay = log.entries
        if measure_coverage and connection is not None and not connection.closed:
            stats, continued = self.mark_pass("coverage", timed=verdict_is_sample)
        if not continued:
            stats = self.end_pass(timed=verdict_is_sample)
        if measure_coverage:
            self._coverage_pass(tests, continued)
        if measure_time:
            best = stats.get("cpu_s", 0.0) if verdict_is_sample else None
            self._timing_passes(tests, best or 0.0, best)

    def _install_module(self):
        sys.modules[self.module_name] = self.module
        parent, _, child = self.module_name.rpartition(".")
        self._parent_binding = (parent, child) if parent else None

    def _bind_parent_package(self):
        """`import pkg.solution` needs the attribute on the (trusted, pristine) parent package."""
        if self._parent_binding is None:
            return
        parent, child = self._parent_binding
        try:
            package = __import__(parent, fromlist=["__name__"])
            setattr(package, child, self.module)
        except Exception:
            pass  # the tests' own import reports it

    def _import_failed(self, exc):
        if isinstance(exc, remote.ProgramGone):
            self.program_lost = str(exc)
            self._flag_violation(True)
            self.emit("collect_error", message=str(exc), traceback="", outcome="error", lost=True)
            return
        if isinstance(exc, remote.ProgramAborted):
            self.emit("collect_error", message=str(exc), traceback="", outcome="error", exit=True)
            return
        message, frames = self._format(exc)
        outcome = "memory" if isinstance(exc, MemoryError) else "error"
        self.emit("collect_error", message=message, traceback=frames, outcome=outcome)

    # -- fast path ---------------------------------------------------------------------------
    def _gated_tests_needed(self):
        return bool(self.gated_files) and self.all_passed is not True and self.program_lost is None

    def _load_fast(self, files, report=True):
        """Execute the compiled test modules of `files` (they import the program through the proxy);
        None if one cannot be loaded (reported as the run's collection error when `report`)."""
        self._bind_parent_package()
        collected = []
        for filename, path, module_name, code in self.prepared.compiled:
            if filename not in files:
                continue
            module = types.ModuleType(module_name)
            module.__file__ = path
            module.__dict__[testprep.EQ_HELPER_NAME] = assert_eq
            module.__dict__[testprep.STAR_HELPER_NAME] = make_star_import(self.request.get("entry_point"))
            try:
                exec(code, module.__dict__)
            except BaseException as exc:
                if not report:
                    return None  # a measurement pass: it ends, cut short, and measures nothing
                if isinstance(exc, remote.ProgramGone):
                    self.program_lost = str(exc)
                    self._flag_violation(True)
                message, frames = self._format(exc)
                outcome = "memory" if isinstance(exc, MemoryError) else "error"
                self.emit(
                    "collect_error",
                    message=message,
                    traceback=frames,
                    outcome=outcome,
                    lost=self.program_lost is not None,
                )
                return None
            collected.extend(_collect(module, filename, path))
        return collected

    def _run_tests(self, tests, report, files=None, deadline=None):
        """Run tests in order; returns False when the pass stopped early (program lost or budget)."""
        for test_id, filename, function in tests:
            if files is not None and filename not in files:
                continue
            started = time.perf_counter()
            outcome, message, frames = "passed", "", ""
            try:
                if deadline is not None:
                    self.session.connection.deadline = deadline
                function()
            except remote.PassBudgetSpent:
                return False
            except BaseException as exc:
                outcome = _outcome_for(exc)
                message, frames = self._format(exc)
                if isinstance(exc, remote.ProgramAborted):
                    self.exit_flagged = True
                    if report:
                        self.emit("flag", name="exit_in_test")
                if isinstance(exc, remote.ProgramGone):
                    self.program_lost = self.program_lost or str(exc)
                    self._flag_violation(report)
            if report:
                self.emit(
                    "result",
                    id=test_id,
                    outcome=outcome,
                    duration=time.perf_counter() - started,
                    message=message,
                    traceback=frames,
                )
                self._track(outcome, filename)
            if self.program_lost is not None:
                if report:
                    self.emit("program_lost", test=test_id, message=self.program_lost)
                return False
            if not report and outcome != "passed":
                return False  # a measurement pass that behaves differently from the verdict pass
        return True

    _outcomes = None

    def _flag_violation(self, report):
        connection = self.session.connection
        if report and connection is not None and connection.violation:
            self.emit("flag", name="protocol_violation")

    def _track(self, outcome, filename):
        if self._outcomes is None:
            self._outcomes = []
        self._outcomes.append((filename, outcome))

    def _measured_passed(self):
        measured = [o for f, o in self._outcomes or () if f in self.measured_files]
        return bool(measured) and all(o == "passed" for o in measured)

    @property
    def all_passed(self):
        if not self._outcomes:
            return None
        return all(o == "passed" for _, o in self._outcomes)

    # -- real pytest ---------------------------------------------------------------------------
    def _write_pytest_files(self):
        if getattr(self, "_pytest_paths", None) is not None:
            return self._pytest_paths
        tests_dir = self.layout["tests"]
        paths = {}
        for filename, source in self.request["tests"].items():
            path = os.path.join(tests_dir, filename)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            try:
                text = testprep.rewritten_source(source)
            except SyntaxError:
                text = source  # pytest reports it as a collection error
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(
                    f"from {_HELPER_MODULE} import assert_eq as {testprep.EQ_HELPER_NAME}, "
                    f"star_import as {testprep.STAR_HELPER_NAME}\n" + text
                )
            paths[filename] = path
        self._pytest_paths = paths
        return paths

    def _pytest_pass(self, files, report, deadline=None, more=False):
        import pytest

        self._bind_parent_package()
        helper = types.ModuleType(_HELPER_MODULE)
        helper.assert_eq = assert_eq
        helper.star_import = make_star_import(self.request.get("entry_point"))
        sys.modules[_HELPER_MODULE] = helper
        paths = self._write_pytest_files()
        targets = [p for f, p in paths.items() if f in files and os.path.basename(f) != "conftest.py"]
        plugin = _PytestReporter(self, report, deadline, more)
        tests_dir = self.layout["tests"]
        pytest.main(
            [
                "-q",
                "-p",
                "no:cacheprovider",
                "-p",
                "no:stepwise",
                "--assert=plain",
                "--rootdir",
                tests_dir,
                "--confcutdir",
                tests_dir,
                "-o",
                "python_files=*.py",
                "-o",
                "addopts=",
                *targets,
            ],
            plugins=[plugin],
        )
        return plugin.completed

    # -- measurement passes --------------------------------------------------------------------
    def _measurement_spawn(self, kind, coverage=False):
        """A measurement pass's program process, with the tests' side made afresh first: the test
        modules, the repo's modules and the proxy of the pass before held what the program put in
        them (a call's changes to its arguments are copied back into the test's own objects, a
        module-level SCHEMA among them), a store that would carry a memo from the verdict pass into
        the timing passes. Loaded again, as for a new run, nothing of one pass reaches the next."""
        self._fresh_session()
        connection = self.spawn(kind, coverage=coverage)
        self.module._codegym_bind(connection.hello())
        return connection

    def _fresh_session(self):
        """The run's modules forgotten and a new session and proxy module in place (see
        _measurement_spawn)."""
        _forget_run(self.baseline_modules, self.layout)
        self.session = remote.Session(self.module_name, self.layout["repo"], self.request.get("entry_point"))
        self.module = remote.RemoteModule(self.session, self.module_name)
        self._install_module()

    def _measurement_continue(self, tests_run=True):
        """The coverage pass in the verdict pass's program process: the tests' side made afresh (as
        in _measurement_spawn) when the tests run again, and the program told to start its tracer
        and run the candidate's module again, in a new module object."""
        previous = self.session.connection
        if tests_run:
            self._fresh_session()
        connection = remote.Connection(previous.channel, self.session, previous.pid)
        previous.closed = True  # its channel is this connection's now
        self.session.connection = connection
        connection._send(b"A", wire.encode(None))
        exports = connection.hello()
        if tests_run:
            self.module._codegym_bind(exports)
        return connection

    def _measured_pass(self, tests, deadline):
        if tests is None:
            return self._pytest_pass(self.measured_files, report=False, deadline=deadline)
        self.session.connection.deadline = deadline  # the test modules' own top-level calls too
        tests = self._load_fast(self.measured_files, report=False)
        if tests is None:
            return False
        return self._run_tests(tests, report=False, files=self.measured_files, deadline=deadline)

    def _coverage_pass(self, tests, in_place=False):
        """The coverage pass (see the module's docstring). One that went on in the verdict pass's
        process and stopped for a reason other than its budget (the module did not run again, a test
        did not pass, the process ended) runs again in a fresh process: a correct program whose
        module cannot run twice in one process gets the figure it got before passes went on."""
        import coverage_probe

        try:  # before the budget's clock starts, as it was when the analysis came after the pass
            source = self.request["files"][self.request["solution_path"]]
            path = os.path.join(self.layout["scratch"], self.request["solution_path"])
            analysis = coverage_probe.analyse(source, path)
        except BaseException:  # no figure can be made: the pass would measure nothing
            self.emit("coverage", complete=False)
            return
        data, again = self._coverage_attempt(tests, analysis, in_place, self.replay)
        if again:
            data, _ = self._coverage_attempt(tests, analysis, in_place=False)
        if data is not None:
            self.emit("coverage", complete=True, **data)
        else:
            self.emit("coverage", complete=False)

    def _coverage_attempt(self, tests, analysis, in_place, replay=None):
        """(the figure or None, whether to try again in a fresh process, running the tests). With
        `replay` (the verdict pass's requests and answers, see remote.ReplayLog) the program serves
        those requests again instead of the tests running again: the same calls with the same
        arguments, each answered as in the verdict pass (else no figure from this attempt), up to
        the point where every statement and branch arc has run."""
        import coverage_probe

        try:
            if in_place:
                connection = self._measurement_continue(tests_run=replay is None)
            else:
                connection = self._measurement_spawn("coverage", coverage=True)
        except BaseException:
            if not in_place:
                self.end_pass()
                return None, False
            self._drop_connection()
            return None, True
        floor = float(self.request.get("coverage_budget_s", 0.02))
        budget = min(floor + COVERAGE_SLOWDOWN * self.verdict_tests_s, max(COVERAGE_MAX_S, floor))
        deadline = time.monotonic() + budget
        statements, possible, multiline, fixers = analysis
        # the program stops its tracer once all of these have run: the figure is final then
        target = (sorted(statements), sorted(possible), sorted(multiline.items()), list(fixers.items()))
        arcs = None
        try:
            connection.deadline = deadline
            if replay is None:
                connection.ask(b"W", *target)
                complete = self._measured_pass(tests, deadline)
            else:  # the target, the requests, and the executed arcs back: one round trip
                served = connection.ask(b"P", *target, replay)
                complete = type(served) is tuple and len(served) == 4 and served[1] is True
                arcs = served[3] if complete else None
        except BaseException:
            complete = False
        data = None
        if complete and not connection.closed:
            connection.deadline = None
            try:
                if arcs is None:
                    arcs = connection.ask(b"O")
                data = coverage_probe.report(
                    arcs if isinstance(arcs, list) else [], statements, possible, multiline, fixers
                )
            except BaseException:
                data = None
        # the pass ends when the next one starts or the run ends (a round trip to the zygote fewer)
        self._drop_connection()
        return data, (in_place or replay is not None) and data is None and time.monotonic() < deadline

    def _drop_connection(self):
        connection = self.session.connection
        if connection is not None:
            connection.close()
        self.session.connection = None

    def _timing_passes(self, tests, spent, best):
        budget = float(self.request.get("timing_budget_s", 0.1))
        repeats = int(self.request.get("timing_repeats", 0))
        enough = self.request.get("timing_enough_s")
        for _ in range(repeats):
            if spent >= budget:
                return
            if enough is not None and best is not None and best <= float(enough):
                return  # a lower minimum would change nothing for the caller
            try:
                self._measurement_spawn("timing")
            except BaseException:
                self.end_pass()
                return
            deadline = time.monotonic() + max(1.0, 10 * budget)
            complete = self._measured_pass(tests, deadline)
            stats = self.end_pass(timed=bool(complete), complete=bool(complete))
            if not complete:
                return
            cpu = stats.get("cpu_s", 0.0)
            spent += cpu
            best = cpu if best is None else min(best, cpu)

    # -- reporting ---------------------------------------------------------------------------
    def _format(self, exc):
        """`Type: message` plus the frames of the program's files (sent by the program process) and,
        for the test files, `file:line` only — the hidden tests' source never leaves the harness."""
        message = f"{_type_name(exc)}: {_safe_str(exc)}"
        frames = []
        test_paths = {os.path.join(self.layout["tests"], f): f for f in self.test_files}
        try:
            for frame in traceback.extract_tb(exc.__traceback__):
                relative = test_paths.get(frame.filename)
                if relative is not None:
                    frames.append(f"{relative}:{frame.lineno}")
        except BaseException:
            pass
        for path, line, name, text in getattr(exc, "_codegym_frames", ()) or ():
            frames.append(f'File "{path}", line {line}, in {name}\n    {text}')
        return message[:MAX_MESSAGE_CHARS], "\n".join(frames)[-MAX_MESSAGE_CHARS:]


_HELPER_MODULE = "__codegym_harness__"


def _type_name(exc):
    kind = type(exc)
    if kind in (remote.ProgramGone, remote.ProgramAborted):
        return "ProgramError"
    return kind.__name__


def _safe_str(exc):
    try:
        return str(exc)[:MAX_MESSAGE_CHARS]
    except BaseException:
        return "<unprintable>"


def _outcome_for(exc):
    if isinstance(exc, AssertionError):
        return "failed"
    if isinstance(exc, MemoryError):
        return "memory"
    if isinstance(exc, remote.ProgramAborted):
        return "failed"
    name = type(exc).__name__
    if name in ("Skipped", "XFailed"):
        return "skipped"
    if name == "Failed":
        return "failed"
    return "error"


def _collect(module, filename, path):
    found = []
    for name, obj in list(module.__dict__.items()):
        if (
            name.startswith("test")
            and isinstance(obj, types.FunctionType)
            and obj.__code__.co_filename == path
        ):
            found.append((f"{filename}::{name}", filename, obj))
        elif name.startswith("Test") and isinstance(obj, type) and obj.__module__ == module.__name__:
            if "__init__" in obj.__dict__:
                continue
            for method_name, method in list(obj.__dict__.items()):
                if method_name.startswith("test") and isinstance(method, types.FunctionType):
                    found.append(
                        (f"{filename}::{name}::{method_name}", filename, _method_runner(obj, method_name))
                    )
    return found


def _method_runner(klass, method_name):
    def run():
        instance = klass()
        setup = getattr(instance, "setup_method", None)
        if setup is not None:
            setup(getattr(instance, method_name))
        try:
            getattr(instance, method_name)()
        finally:
            teardown = getattr(instance, "teardown_method", None)
            if teardown is not None:
                teardown(getattr(instance, method_name))

    return run


class _PytestReporter:
    """pytest plugin: forwards outcomes to the worker (verdict pass) or just watches (measurement)."""

    def __init__(self, harness, report, deadline, more=False):
        self.harness = harness
        self.report = report
        self.deadline = deadline
        self.more = more
        self.reported = {}  # node id -> the outcome reported for it
        self.completed = True

    def pytest_collection_finish(self, session):
        if self.report:
            tests = [item.nodeid for item in session.items]
            self.harness.emit("begin", tests=tests, runner="pytest", more=self.more)

    def pytest_collectreport(self, report):
        if report.failed:
            self.completed = False
            if self.report:
                message = _first_line(str(report.longrepr))
                outcome = "memory" if "MemoryError" in message else "error"
                self.harness.emit("collect_error", message=message, traceback="", outcome=outcome)

    def pytest_runtest_setup(self, item):
        connection = self.harness.session.connection
        if self.deadline is not None and connection is not None:
            connection.deadline = self.deadline
        if self.harness.program_lost is not None or (connection is not None and connection.closed):
            import pytest

            if not self.report:
                self.completed = False
            pytest.skip("the program process is gone")

    def pytest_runtest_makereport(self, item, call):
        if call.excinfo is None:
            return
        exc = call.excinfo.value
        if isinstance(exc, remote.ProgramGone):
            self.harness.program_lost = self.harness.program_lost or str(exc)
            self.harness._flag_violation(self.report)
        if isinstance(exc, remote.ProgramAborted) and self.report and not self.harness.exit_flagged:
            self.harness.exit_flagged = True
            self.harness.emit("flag", name="exit_in_test")
        if isinstance(exc, remote.PassBudgetSpent):
            self.completed = False

    def pytest_runtest_logreport(self, report):
        if report.when == "teardown" and report.failed and self.reported.get(report.nodeid) == "passed":
            # a check after the test body (a fixture's code after `yield`, teardown_method): the test
            # did not pass, as plain pytest says (it reports an error)
            self.reported.pop(report.nodeid)
        elif report.nodeid in self.reported or not (report.when == "call" or report.failed or report.skipped):
            return
        self.reported[report.nodeid] = "passed" if report.passed else "not passed"
        if not self.report:
            if not report.passed:
                self.completed = False
            return
        message = ""
        if report.passed:
            outcome = "passed"
        elif report.skipped:
            outcome = "skipped"
            if self.harness.program_lost is not None:
                outcome = "error"
                message = self.harness.program_lost
        else:
            crash = getattr(report.longrepr, "reprcrash", None)
            message = _first_line(crash.message if crash is not None else str(report.longrepr))
            outcome = "failed" if report.when == "call" else "error"
            if message.startswith("MemoryError"):
                outcome = "memory"
            if "ProgramGone" in message or "ProgramError" in message:
                outcome = "error"
        self.harness.emit(
            "result",
            id=report.nodeid,
            outcome=outcome,
            duration=report.duration,
            message=message,
            traceback="",
        )
        self.harness._track(outcome, report.nodeid.split("::", 1)[0])

    def pytest_sessionfinish(self, session):
        if self.report and self.harness.program_lost is not None:
            self.harness.emit("program_lost", test="", message=self.harness.program_lost)


def _first_line(text):
    """pytest's crash line without the `where ...` lines that quote the test's source."""
    return (text or "").strip().splitlines()[0][:MAX_MESSAGE_CHARS] if (text or "").strip() else ""


def serve(control, layout, harness_uid):
    """The harness process: set up once (its own uid, non-dumpable, no privileges), then run one
    request at a time as the worker sends them; never returns. Between runs it forgets what a run
    loaded (the program's proxy module, the task's repo modules, the tests' modules), so nothing of
    one run's task reaches the next."""
    code = 0
    try:
        osutil.set_process_name("cg-harness")
        os.setsid()
        osutil.close_fds_except({control.fileno(), 2})
        devnull = os.open(os.devnull, os.O_RDWR)
        for fd in (0, 1):
            os.dup2(devnull, fd)
        os.environ.clear()
        os.environ.update(
            {
                "PATH": "/usr/bin:/bin",
                "LANG": "C.UTF-8",
                "HOME": layout["tests"],
                "TMPDIR": layout["tests"],
                "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1",
            }
        )
        if harness_uid is not None:
            osutil.become(harness_uid)
        osutil.prctl(osutil.PR_SET_DUMPABLE, 0)
        osutil.prctl(osutil.PR_SET_NO_NEW_PRIVS, 1)
        sys.setrecursionlimit(max(sys.getrecursionlimit(), 20000))
        baseline_modules = set(sys.modules)
        prepared_cache = {}
        while True:
            message, _fds = osutil.receive_message(control)
            if message is None:
                break
            run_one(message, layout, control, prepared_cache, baseline_modules)
            _forget_run(baseline_modules, layout)
    except BaseException:
        traceback.print_exc()
        code = 71
    finally:
        os._exit(code)


def run_one(message, layout, control, prepared_cache, baseline_modules):
    request = message["request"]
    prepared = _prepared(message, layout, prepared_cache)
    os.chdir(layout["tests"])
    sys.path[:] = [layout["repo"], *layout["harness_path"]]
    harness = Harness(request, layout, control, prepared)
    harness.baseline_modules = baseline_modules
    harness.deadline = float(message["deadline"]) - DEADLINE_MARGIN_S
    harness.flush_before(float(message["deadline"]))
    try:
        harness.run()
        _close_program(harness)  # the program process exits now, before the worker ends the pass
        harness.emit("end")
    except caserun.CheckerFault as exc:  # the pack's fault: never the program's, never retried as such
        harness.emit("runner_error", message=str(exc), pack_fault=True)
    except HarnessFault as exc:
        harness.emit("runner_error", message=str(exc))
    except BaseException as exc:
        harness.emit(
            "runner_error",
            message=f"{type(exc).__name__}: {_safe_str(exc)}",
            traceback=traceback.format_exc()[-4000:],
        )
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        _close_program(harness)


def _close_program(harness):
    connection = harness.session.connection
    if connection is not None:
        connection.close()


def _prepared(message, layout, cache):
    """The run's compiled tests: from the wire (kept under their key), from the cache, or compiled
    here from the tests' source."""
    request = message["request"]
    sent, key = message.get("prepared"), message.get("prepared_key")
    if sent is not None:
        prepared = testprep.from_wire(sent, layout["tests"])
        if prepared is not None:
            if key:
                cache[key] = prepared
                while len(cache) > 512:
                    del cache[next(iter(cache))]
            return prepared
    if key is not None and key in cache:
        return cache[key]
    return testprep.prepare(request["tests"], request.get("test_runner"), layout["tests"])


def _forget_run(baseline_modules, layout):
    """Drop the modules of this run's task: the program's proxy, the repo's (trusted but per task),
    the tests' and conftest modules. Standard-library and pytest modules stay loaded."""
    roots = _run_roots(layout["repo"], layout["tests"])
    for name, module in list(sys.modules.items()):
        if name in baseline_modules:
            continue
        if isinstance(module, remote.RemoteModule) or name == _HELPER_MODULE:
            del sys.modules[name]
            continue
        locations = [getattr(module, "__file__", None), *(getattr(module, "__path__", None) or [])]
        if any(isinstance(p, str) and os.path.realpath(p).startswith(roots) for p in locations):
            del sys.modules[name]
        else:
            # a standard-library or installed module a run loaded: it stays, and is not looked at
            # again (each look resolves its paths, one lstat per path component)
            baseline_modules.add(name)
    sys.path_importer_cache.clear()


@functools.lru_cache(maxsize=4)
def _run_roots(*directories):
    """The run's directories, resolved, each with a trailing separator: resolved once per worker
    (one lstat per path component, twice per run otherwise); the worker made them and keeps them,
    and nothing that runs in a run can change them."""
    return tuple(os.path.realpath(path) + os.sep for path in directories)
