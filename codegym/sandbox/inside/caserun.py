"""Input/output cases, run by the trusted harness (see codegym/tasks/cases.py for the task side).

stdio: a case process (mainrun.py) runs the program's file afresh as `__main__` for each case, on
three fresh pipes the harness hands it; the harness writes the input, reads stdout (bounded) and
stderr (kept short) until the pipes close, and takes the exit code from the case process — or, when
the case ended that process, from the zygote's account of how it ended (exit code, signal, peak
memory) — then starts a fresh process for the next case. The expected output never leaves the
harness.

call: one program process serves the calls (as for test modules); each case calls the named function
(or a fresh `Class()`'s method) with a copy of the case's arguments under the case's time limit. A
call that runs over ends that program process; the next case gets a fresh one.

Either way a case's outcome is decided here, from what the program printed or returned, by
compare.py; the pack's checker (trusted, from the pack) runs here too.
"""

import copy
import errno
import os
import select
import signal
import socket
import struct
import time

import casedata
import compare
import evalplus_oracles
import remote

HEAD_CHARS = 200
STDERR_KEEP = 4000
MIN_OUTPUT_CAP = 1 << 20
REPLY = struct.Struct("<ii")  # the case process's answer (see mainrun.serve_cases)


class CheckerFault(Exception):
    """The pack's checker failed: ours (the pack's), never the program's."""


def head(text, limit=HEAD_CHARS):
    return text if len(text) <= limit else text[:limit] + f"... [{len(text) - limit} more chars]"


class CaseRunner:
    def __init__(self, harness, suite):
        self.harness = harness
        self.suite = suite
        comparison = suite.get("comparison") or {}
        self.match = comparison.get("match", "lines")
        self.rel = float(comparison.get("float_rel") or 0.0)
        self.tol = float(comparison.get("float_abs") or 0.0)
        self.oracle = comparison.get("oracle", "equal")
        self.check = _load_checker(comparison.get("checker"))
        self.default_timeout = float(suite.get("case_timeout_s") or 4.0)
        self.stop_early = bool(harness.request.get("stop_at_first_failure"))
        self.record = bool(harness.request.get("record_returns"))
        self.cases = suite["cases"]
        self.case_socket = None
        self.case_processes_started = 0
        self.ids = [f"case_{index}" for index in range(len(self.cases))]

    def run(self, run_deadline):
        self.harness.emit("begin", tests=self.ids, runner=f"cases:{self.suite['kind']}")
        runner = self._stdio_case if self.suite["kind"] == "stdio" else self._call_case
        try:
            for index, case in enumerate(self.cases):
                timeout = float(case.get("timeout_s") or self.default_timeout)
                outcome = runner(index, case, min(time.monotonic() + timeout, run_deadline))
                if outcome != "passed" and self.stop_early and not self.record:
                    break
        finally:
            self.close()
        self.harness.emit("tests_done")

    def _report(self, index, outcome, started, message="", input_text="", expected="", actual=""):
        self.harness.emit(
            "result",
            id=self.ids[index],
            outcome=outcome,
            duration=time.perf_counter() - started,
            message=message,
            traceback="",
            own=True,  # codegym's words, or the program's, which was sent only the case's input
            input_head=head(input_text),
            expected_head=head(expected),
            actual_head=head(actual),
        )
        self.harness._track(outcome, None)  # cases: no test files, no coverage pass
        return outcome

    # -- stdio ---------------------------------------------------------------------------------
    def _stdio_case(self, index, case, deadline):
        started = time.perf_counter()
        stdin = casedata.decode_value(case["input"])
        expected = casedata.decode_value(case["expected"])
        report = {"input_text": stdin, "expected": expected}
        cap = max(int(self.harness.request["limits"]["max_output_bytes"]), MIN_OUTPUT_CAP, 2 * len(expected))
        pipes = [os.pipe(), os.pipe(), os.pipe()]
        ours = [pipes[0][1], pipes[1][0], pipes[2][0]]
        theirs = [pipes[0][0], pipes[1][1], pipes[2][1]]
        try:
            sent = self._send_case(theirs)
        finally:
            for fd in theirs:
                os.close(fd)
        try:
            if not sent:
                ended, out, err = "lost", b"", b""
            else:
                ended, out, err = _exchange(ours, stdin.encode("utf-8"), deadline, cap)
        finally:
            for fd in ours:
                if fd >= 0:
                    os.close(fd)
        report["actual"] = out.decode("utf-8", "replace")
        if ended == "output_limit":
            self._end_case_process()
            return self._report(index, "output_limit", started, f"printed more than {cap} bytes", **report)
        if ended == "timeout":
            self._end_case_process()
            return self._report(index, "timeout", started, "exceeded the case's time limit", **report)
        ending = self._case_reply(deadline) if ended == "done" else None
        peak_mb = None
        if ending is None:  # ran over after closing its output, or the process ended: the zygote knows how
            timed_out = time.monotonic() >= deadline
            stats = self._end_case_process()
            if timed_out:
                return self._report(index, "timeout", started, "exceeded the case's time limit", **report)
            exit_code, sig = stats.get("exit_code"), stats.get("signal")
            peak_mb = float(stats.get("peak_memory_mb") or 0.0)
            if exit_code is None and sig is None:
                return self._report(
                    index, "error", started, "the program process ended unexpectedly", **report
                )
        else:
            (exit_code, fit), sig = ending, None
            if not fit:  # it exits after this case; the next one gets a fresh process
                self._end_case_process()
        error_text = err.decode("utf-8", "replace")
        if sig is not None or exit_code != 0:
            if sig == signal.SIGXCPU:
                return self._report(index, "timeout", started, "exceeded the CPU time limit", **report)
            memory_mb = float(self.harness.request["limits"]["memory_mb"])
            near_limit = peak_mb is not None and peak_mb >= 0.9 * memory_mb
            if near_limit or error_text.rstrip().endswith("MemoryError"):
                return self._report(index, "memory", started, "ran out of memory", **report)
            how = f"killed by signal {sig}" if sig is not None else f"exit code {exit_code}"
            tail = error_text.strip()[-STDERR_KEEP:]
            return self._report(index, "error", started, f"runtime error ({how})\n{tail}".rstrip(), **report)
        passed = self._judge_stdout(stdin, expected, report["actual"])
        if passed:
            return self._report(index, "passed", started, **report)
        return self._report(index, "failed", started, "wrong answer", **report)

    def _send_case(self, fds):
        """Hand a case's pipes to the case process (started on first use, and again after a case that
        ended it or made it unfit)."""
        for attempt in range(2):
            if self.case_socket is None:
                fd = self.harness.spawn_case_process(fresh=not self.case_processes_started)
                self.case_socket = socket.socket(fileno=fd)
                self.case_processes_started += 1
            try:
                socket.send_fds(self.case_socket, [b"C"], fds)
                return True
            except OSError:
                self._end_case_process()
                if attempt:
                    return False
        return False

    def _case_reply(self, deadline):
        """(exit code, fit for another case) from the case process; None if it does not say in time."""
        buffer = b""
        self.case_socket.settimeout(max(0.001, deadline - time.monotonic()))
        try:
            while len(buffer) < REPLY.size:
                chunk = self.case_socket.recv(REPLY.size - len(buffer))
                if not chunk:
                    return None
                buffer += chunk
        except OSError:
            return None
        code, fit = REPLY.unpack(buffer)
        return code, bool(fit)

    def _end_case_process(self):
        """End the case process's pass (the zygote kills every program process) and return how the
        pass ended; the next case starts a fresh process."""
        stats = {}
        if self.case_socket is not None:
            self.case_socket.close()
            self.case_socket = None
            stats = self.harness.end_pass()
        return stats

    def close(self):
        if self.case_socket is not None:
            self.case_socket.close()
            self.case_socket = None

    def _judge_stdout(self, stdin, expected, actual):
        if self.check is not None:
            return _checked(self.check, stdin, expected, actual)
        return compare.stdout_matches(expected, actual, self.match, self.rel, self.tol)

    # -- call ----------------------------------------------------------------------------------
    def _call_case(self, index, case, deadline):
        started = time.perf_counter()
        args = casedata.decode_value(case["input"])
        expected = casedata.decode_value(case["expected"])
        report = {"input_text": compare.safe_repr(args), "expected": compare.safe_repr(expected)}
        if not self._ensure_program(index, report, started):
            return "error"
        connection = self.harness.session.connection
        connection.deadline = deadline
        outcome, message, actual = "passed", "", None
        try:
            target = self._target()
            actual = target(*copy.deepcopy(list(args)))
        except remote.PassBudgetSpent:
            self._restart()
            return self._report(index, "timeout", started, "exceeded the case's time limit", **report)
        except BaseException as exc:
            if isinstance(exc, remote.ProgramGone):
                self._restart()
            outcome = "memory" if isinstance(exc, MemoryError) else "error"
            if isinstance(exc, remote.ProgramAborted):
                self.harness.emit("flag", name="exit_in_test")
            message, frames = self.harness._format(exc)
            message = f"{message}\n{frames}".rstrip()
            return self._report(index, outcome, started, message, **report)
        finally:
            if self.harness.session.connection is connection and not connection.closed:
                connection.deadline = None
        if self.record:
            try:
                value = casedata.encode_value(compare.plain(actual))
            except (TypeError, ValueError):
                value = None
            self.harness.emit("case_return", index=index, value=value)
        report["actual"] = compare.safe_repr(actual)
        try:
            passed = self._judge_return(args, expected, actual)
        except CheckerFault:
            raise
        except Exception as exc:  # a comparison on odd data: the answer is not the expected one
            passed, message = False, f"could not compare: {type(exc).__name__}"
        if not passed:
            outcome, message = "failed", message or "wrong answer"
        return self._report(index, outcome, started, message, **report)

    def _judge_return(self, args, expected, actual):
        if self.check is not None:
            return _checked(self.check, args, expected, compare.plain(actual))
        if self.record:
            return True  # recording the reference's answers: nothing to compare with yet
        if self.oracle in evalplus_oracles.ORACLES and self.oracle != "set":
            # EvalPlus's rules need the arguments and the answer's own types (tuples are not lists)
            return evalplus_oracles.judge(self.oracle, args, expected, actual, self.tol)
        return compare.return_matches(expected, actual, self.oracle, self.rel, self.tol)

    def _target(self):
        function = self.suite["function"]
        if "." in function:
            class_name, method = function.split(".", 1)
            instance = getattr(self.harness.module, class_name)()
            return getattr(instance, method)
        return getattr(self.harness.module, function)

    def _ensure_program(self, index, report, started):
        """A program process that has imported the candidate (a fresh one after a timeout)."""
        if self.harness.session.connection is not None:
            return True
        connection = self.harness.spawn("verdict")
        try:
            exports = connection.hello()
        except BaseException as exc:
            message, frames = self.harness._format(exc)
            self.harness.end_pass()
            self._report(index, "error", started, f"{message}\n{frames}".rstrip(), **report)
            return False
        self.harness.module._codegym_bind(exports)
        return True

    def _restart(self):
        self.harness.end_pass()


def _load_checker(source):
    if not source:
        return None
    namespace = {"__name__": "codegym_checker"}
    try:
        exec(compile(source, "checker.py", "exec"), namespace)
    except BaseException as exc:
        raise CheckerFault(f"the pack's checker does not load: {type(exc).__name__}: {exc}") from None
    check = namespace.get("check")
    if not callable(check):
        raise CheckerFault("the pack's checker defines no check(input, expected, actual)")
    return check


def _checked(check, given, expected, actual):
    try:
        verdict = check(given, expected, actual)
    except BaseException as exc:
        raise CheckerFault(f"the pack's checker failed: {type(exc).__name__}: {exc}") from None
    if isinstance(verdict, bool):
        return verdict
    if isinstance(verdict, (int, float)):
        return float(verdict) >= 1.0 - 1e-9
    raise CheckerFault(f"the pack's checker returned {type(verdict).__name__}, not bool or float")


def _exchange(fds, data, deadline, cap):
    """Write `data` to the program's stdin while reading its stdout and stderr until both close.
    Returns (how it ended: done | timeout | output_limit, stdout bytes, stderr head bytes). `fds` is
    [stdin, stdout, stderr]; a descriptor closed here is set to -1 there."""
    stdin_w, stdout_r, stderr_r = fds
    out, err = bytearray(), bytearray()
    view, sent = memoryview(data), 0
    for fd in fds:
        os.set_blocking(fd, False)
    poller = select.poll()
    open_reads = {stdout_r, stderr_r}
    for fd in open_reads:
        poller.register(fd, select.POLLIN)
    if data:
        poller.register(stdin_w, select.POLLOUT)
    else:
        _close_stdin(fds)
    while open_reads:
        remaining = deadline - time.monotonic()
        if remaining <= 0:
            return "timeout", bytes(out), bytes(err)
        for fd, _events in poller.poll(max(1, int(remaining * 1000))):
            if fd == stdin_w:
                try:
                    sent += os.write(fd, view[sent : sent + 65536])
                except BlockingIOError:
                    continue
                except OSError as exc:  # the program closed stdin or ended without reading it all
                    if exc.errno not in (errno.EPIPE, errno.EBADF):
                        raise
                    sent = len(data)
                if sent >= len(data):
                    poller.unregister(fd)
                    _close_stdin(fds)  # EOF: the program may be waiting for the whole input
                continue
            try:
                chunk = os.read(fd, 1 << 16)
            except BlockingIOError:
                continue
            if not chunk:
                poller.unregister(fd)
                open_reads.discard(fd)
                continue
            if fd == stdout_r:
                out += chunk
                if len(out) > cap:
                    return "output_limit", bytes(out[:cap]), bytes(err)
            elif len(err) < STDERR_KEEP * 4:
                err += chunk[: STDERR_KEEP * 4 - len(err)]
    return "done", bytes(out), bytes(err)


def _close_stdin(fds):
    if fds[0] >= 0:
        os.close(fds[0])
        fds[0] = -1
