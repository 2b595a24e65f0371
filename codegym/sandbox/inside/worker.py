"""Warm sandbox worker: a long-lived process inside fresh namespaces that forks one child per execution.

Started by a backend (bubblewrap/unshare locally, `docker exec` in a container) with a JSON config as
its only argument; it then serves length-prefixed JSON frames on stdin/stdout (see protocol.py).

Per execution it creates a private scratch directory, forks, and in the child: replaces stdio
with pipes it reads itself, closes every other descriptor, scrubs the environment, sets rlimits
(address space, CPU, processes, file size, open files, no core dumps), sets no_new_privs, and —
when it may — switches to an unprivileged per-slot uid, so the program cannot signal the worker.
The child then runs the test runner, which reports on a private pipe (see runner.py). The worker
enforces the wall-clock deadline and the output cap, and after every execution SIGKILLs every
process left in its PID namespace and wipes the scratch directory: nothing outlives a run.

Safety: `kill(-1, SIGKILL)` is only ever sent after checking that the worker is not in the host's
PID namespace (the host passes its own namespace id); the worker refuses to start otherwise.

Unprivileged worker (a container's PID 1, running as the same non-root uid as the programs): the
kernel already keeps SIGKILL/SIGSTOP from the container's own processes away from PID 1, and the
worker also ignores SIGINT (the one signal CPython handles). It marks itself non-dumpable, so
programs of its uid can neither ptrace it nor open /proc/1/fd/* (its channel to the host). After
every run it also empties the config's `wipe` directories (the container's only writable places),
so nothing a program leaves behind reaches the next run.
"""

import ctypes
import gc
import json
import os
import resource
import select
import shutil
import signal
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import contextlib

import protocol
import runner

KEEP_OUTPUT_BYTES = 8 * 1024
MAX_VERDICT_BYTES = 8 * 1024 * 1024
PR_SET_NO_NEW_PRIVS = 38
PR_SET_DUMPABLE = 4
PR_SET_CHILD_SUBREAPER = 36
PR_CAPBSET_DROP = 24
M_ARENA_MAX = -8
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"

_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option, value):
    return _libc.prctl(ctypes.c_int(option), ctypes.c_ulong(value), 0, 0, 0)


def _mount(source, target, fstype, flags, data):
    encode = lambda value: value.encode() if value is not None else None  # noqa: E731
    if _libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def apply_mount_plan(plan):
    """The unshare path's filesystem view (bubblewrap builds the same one from its own flags):
    hide home/temp/project directories under empty tmpfs, re-expose the Python installation
    read-only, and make the root mount read-only."""
    exposed = []
    for path in plan.get("expose", []):
        if os.path.isdir(path):
            exposed.append((path, os.open(path, getattr(os, "O_PATH", os.O_RDONLY))))
    _mount(None, "/", None, MS_REC | MS_PRIVATE, None)
    for path in plan.get("hide", []):
        if os.path.isdir(path) and not os.path.islink(path):
            options = f"size={plan['tmp_size_mb']}m,mode=1777" if path == "/tmp" else "size=1m,mode=755"
            _mount("tmpfs", path, "tmpfs", MS_NOSUID | MS_NODEV, options)
    for path, fd in exposed:
        os.makedirs(path, exist_ok=True)
        _mount(f"/proc/self/fd/{fd}", path, None, MS_BIND | MS_REC, None)
        _mount(None, path, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None)
        os.close(fd)
    if plan.get("readonly_root", True):
        _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID, None)


def _drop_capabilities():
    """Empty the bounding set (no capabilities regained on exec) and the current sets."""
    for capability in range(64):
        _prctl(PR_CAPBSET_DROP, capability)
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this thread
    data = (ctypes.c_uint32 * 6)()
    if _libc.capset(header, data) != 0:
        raise OSError(ctypes.get_errno(), "capset failed")


def remove_tree(path):
    """rmtree that also removes what a program made unremovable for a non-root worker (chmod 000)."""
    if os.path.islink(path):
        with contextlib.suppress(OSError):
            os.unlink(path)
        return
    shutil.rmtree(path, ignore_errors=True)
    if not os.path.lexists(path):
        return
    with contextlib.suppress(OSError):
        os.chmod(path, 0o700)
    for root, dirs, _files in os.walk(path):
        for name in dirs:
            child = os.path.join(root, name)
            if not os.path.islink(child):
                with contextlib.suppress(OSError):
                    os.chmod(child, 0o700)
    shutil.rmtree(path, ignore_errors=True)


def empty_directory(path):
    """Remove everything inside `path`; True when it is empty afterwards."""
    try:
        names = os.listdir(path)
    except FileNotFoundError:
        return True
    except OSError:
        return False
    for name in names:
        child = os.path.join(path, name)
        if os.path.isdir(child) and not os.path.islink(child):
            remove_tree(child)
        else:
            with contextlib.suppress(OSError):
                os.unlink(child)
    try:
        return not os.listdir(path)
    except OSError:
        return False


def pid_namespace_id():
    try:
        return os.readlink("/proc/self/ns/pid")
    except OSError:
        return None


class OutputCapture:
    """Keeps the head and tail of a stream and counts everything."""

    def __init__(self):
        self.head = bytearray()
        self.tail = bytearray()
        self.total = 0

    def add(self, data):
        self.total += len(data)
        room = KEEP_OUTPUT_BYTES - len(self.head)
        if room > 0:
            self.head += data[:room]
            data = data[room:]
        if data:
            self.tail += data
            if len(self.tail) > KEEP_OUTPUT_BYTES:
                del self.tail[: len(self.tail) - KEEP_OUTPUT_BYTES]

    def text(self):
        dropped = self.total - len(self.head) - len(self.tail)
        middle = f"\n...[{dropped} bytes omitted]...\n" if dropped > 0 else ""
        return self.head.decode("utf-8", "replace") + middle + self.tail.decode("utf-8", "replace")

    @property
    def truncated(self):
        return self.total > len(self.head) + len(self.tail)


class VerdictReader:
    """Parses token-stamped records; anything else is counted as a forgery attempt."""

    def __init__(self, token):
        self.token = token
        self.buffer = bytearray()
        self.size = 0
        self.begin = None
        self.runner = ""
        self.results = {}
        self.order = []
        self.collect_error = None
        self.runner_error = None
        self.tests_done = False
        self.end = False
        self.coverage = None
        self.timing = []
        self.return_types = []
        self.flags = []
        self.flooded = False

    def feed(self, data):
        self.size += len(data)
        if self.size > MAX_VERDICT_BYTES:
            self.flooded = True
            return
        self.buffer += data
        while True:
            newline = self.buffer.find(b"\n")
            if newline < 0:
                return
            line = bytes(self.buffer[:newline])
            del self.buffer[: newline + 1]
            self._record(line)

    def _flag(self, name):
        if name not in self.flags:
            self.flags.append(name)

    def _record(self, line):
        try:
            record = json.loads(line.decode("utf-8"))
        except ValueError:
            self._flag("forged_verdict")
            return
        if not isinstance(record, dict) or record.get("t") != self.token:
            self._flag("forged_verdict")
            return
        if self.end:
            self._flag("record_after_end")
            return
        kind = record.get("k")
        if kind == "begin":
            if self.begin is None:
                self.begin = [str(test_id) for test_id in record.get("tests", [])]
                self.runner = str(record.get("runner", ""))
        elif kind == "result":
            test_id = str(record.get("id"))
            if test_id not in self.results:
                self.order.append(test_id)
            self.results[test_id] = {
                "test_id": test_id,
                "outcome": str(record.get("outcome", "error")),
                "duration_s": float(record.get("duration") or 0.0),
                "message": str(record.get("message", ""))[:4000],
                "traceback": str(record.get("traceback", ""))[:4000],
            }
        elif kind == "collect_error":
            self.collect_error = record
        elif kind == "runner_error":
            self.runner_error = record
        elif kind == "flag":
            self._flag(str(record.get("name")))
        elif kind == "tests_done":
            self.tests_done = True
        elif kind == "coverage":
            self.coverage = {
                key: record.get(key, [])
                for key in ("executed_lines", "missing_lines", "executed_branches", "missing_branches")
            }
            self.coverage["complete"] = bool(record.get("complete", True))
        elif kind == "returns":
            self.return_types = [str(name) for name in record.get("types", [])][:64]
        elif kind == "timing":
            self.timing = [float(x) for x in record.get("cpu_s", [])]
        elif kind == "end":
            self.end = True


class Worker:
    def __init__(self, config):
        self.config = config
        self.sandbox_uid = config.get("sandbox_uid")
        self.scratch_root = config.get("scratch_root", "/tmp/codegym")
        self.counter = 0
        self.pid_ns_checked = False
        self.preparer = runner.TestPreparer()
        self.coverage_preloaded = False
        self.coverage_probes = {}
        self.wipe = [str(path) for path in config.get("wipe", [])]
        self.undumpable = False
        self.tainted = False

    # -- start-up ---------------------------------------------------------------------------
    def prepare(self):
        host_ns = self.config.get("host_pid_namespace")
        own_ns = pid_namespace_id()
        if not host_ns or not own_ns or own_ns == host_ns:
            raise RuntimeError(f"refusing to run: not inside a private PID namespace ({own_ns})")
        self.pid_ns_checked = True
        if os.getuid() != 0 and self.sandbox_uid is None:
            # Programs will run under our own uid and we hold no capabilities: dumpable, we could be
            # ptraced and our /proc/<pid>/fd/* (the channel to the host) opened by them.
            _prctl(PR_SET_DUMPABLE, 0)
            self.undumpable = True
        if self.config.get("mounts"):
            apply_mount_plan(self.config["mounts"])
        if os.getpid() != 1:
            _prctl(PR_SET_CHILD_SUBREAPER, 1)
        os.makedirs(self.scratch_root, mode=0o755, exist_ok=True)
        preloaded = []
        for name in self.config.get("preload", []):
            try:
                __import__(name)
                preloaded.append(name)
            except Exception:
                pass
        if "coverage" in preloaded:
            self.coverage_preloaded = True
        # Few malloc arenas: each thread's arena would otherwise reserve 64 MB of the address-space limit.
        _libc.mallopt(M_ARENA_MAX, 2)
        # Objects that exist now are never collected; freezing them keeps the collector from
        # writing to every inherited page in each forked child (copy-on-write faults are costly).
        gc.freeze()
        return {
            "python": sys.version.split()[0],
            "pid": os.getpid(),
            "uid": os.getuid(),
            "sandbox_uid": self.sandbox_uid,
            "pid_namespace": own_ns,
            "preloaded": preloaded,
        }

    # -- one execution -----------------------------------------------------------------------
    def execute(self, request):
        self.counter += 1
        # One fixed path per worker (runs are sequential): compiled tests stay valid across runs.
        scratch = os.path.join(self.scratch_root, "run")
        remove_tree(scratch)
        prepared = runner.prepared_from_wire(request.get("prepared"), scratch) or self.preparer.prepare(
            request["tests"], request.get("test_runner"), scratch
        )
        probe = self._coverage_probe(request, scratch)
        analysis = None
        if probe is not None:
            try:
                analysis = probe.analyse(request, scratch)
            except Exception:
                analysis = None
        try:
            self._write_scratch(scratch, request)
        except OSError as exc:
            remove_tree(scratch)
            return {"status": "sandbox_error", "message": f"could not prepare scratch: {exc}"}
        token = os.urandom(16).hex()
        verdict_r, verdict_w = os.pipe()
        out_r, out_w = os.pipe()
        err_r, err_w = os.pipe()
        limits = request["limits"]
        started = time.monotonic()
        pid = os.fork()
        if pid == 0:
            try:
                self._child(request, scratch, token, verdict_w, out_w, err_w, prepared, probe, analysis)
            finally:
                os._exit(70)
        for fd in (verdict_w, out_w, err_w):
            os.close(fd)
        try:
            return self._supervise(pid, request, limits, token, started, verdict_r, out_r, err_r)
        finally:
            self._kill_all()
            self._reap_all()
            remove_tree(scratch)
            self._wipe()

    def _wipe(self):
        """Empty the `wipe` directories; one that cannot be emptied taints the worker (it exits)."""
        for path in self.wipe:
            if not empty_directory(path):
                self.tainted = True
        if self.wipe:
            os.makedirs(self.scratch_root, mode=0o755, exist_ok=True)

    def _write_scratch(self, scratch, request):
        os.makedirs(scratch, mode=0o700)
        for relative, content in request["files"].items():
            path = os.path.join(scratch, relative)
            os.makedirs(os.path.dirname(path), exist_ok=True)
            with open(path, "w", encoding="utf-8") as handle:
                handle.write(content)
        os.makedirs(os.path.join(scratch, ".tmp"), exist_ok=True)
        if self.sandbox_uid is not None:
            for directory, _subdirs, files in os.walk(scratch):
                os.chown(directory, self.sandbox_uid, self.sandbox_uid)
                for name in files:
                    os.chown(os.path.join(directory, name), self.sandbox_uid, self.sandbox_uid)

    def _coverage_probe(self, request, scratch):
        """A warmed coverage probe for this solution path, made once per path before forking (its
        start-up costs tens of milliseconds); None when coverage was not preloaded."""
        if not (self.coverage_preloaded and request.get("measure_coverage")):
            return None
        path = request["solution_path"]
        if path not in self.coverage_probes:
            probe = runner.CoverageProbe(scratch, path)
            try:
                probe.warm_import(scratch, path)
            finally:
                remove_tree(scratch)
            self.coverage_probes[path] = probe
        return self.coverage_probes[path]

    def _child(self, request, scratch, token, verdict_w, out_w, err_w, prepared, probe, analysis=None):
        limits = request["limits"]
        os.setsid()
        devnull = os.open(os.devnull, os.O_RDONLY)
        os.dup2(devnull, 0)
        os.dup2(out_w, 1)
        os.dup2(err_w, 2)
        os.dup2(verdict_w, 3)
        os.closerange(4, resource.getrlimit(resource.RLIMIT_NOFILE)[0])
        if self.undumpable:
            _prctl(PR_SET_DUMPABLE, 1)  # the worker's channel is closed now; /proc/self works again
        for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGCHLD, signal.SIGPIPE):
            signal.signal(signum, signal.SIG_DFL)
        signal.signal(signal.SIGPIPE, signal.SIG_IGN)
        signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes fail with EFBIG instead of killing
        with open("/proc/self/statm") as handle:
            baseline = int(handle.read().split()[0]) * resource.getpagesize()
        memory = baseline + int(limits["memory_mb"]) * 1024 * 1024
        cpu = int(float(limits["timeout_s"])) + 1
        for which, value in (
            (resource.RLIMIT_AS, memory),
            (resource.RLIMIT_CPU, (cpu, cpu + 1)),
            (resource.RLIMIT_NPROC, int(limits["max_processes"])),
            (resource.RLIMIT_FSIZE, int(limits["max_file_bytes"])),
            (resource.RLIMIT_NOFILE, int(limits["max_open_files"])),
            (resource.RLIMIT_CORE, 0),
        ):
            soft_hard = value if isinstance(value, tuple) else (value, value)
            resource.setrlimit(which, soft_hard)
        os.environ.clear()
        os.environ.update(
            {
                "PATH": SANDBOX_PATH,
                "HOME": scratch,
                "TMPDIR": os.path.join(scratch, ".tmp"),
                "LANG": "C.UTF-8",
                "PYTHONDONTWRITEBYTECODE": "1",
                "PYTHONHASHSEED": "0",
            }
        )
        os.chdir(scratch)
        _prctl(PR_SET_NO_NEW_PRIVS, 1)
        if self.sandbox_uid is not None:
            os.setgroups([])
            os.setgid(self.sandbox_uid)
            os.setuid(self.sandbox_uid)
        elif os.getuid() == 0:
            _drop_capabilities()  # root of a user namespace: it could otherwise undo the mounts
        sys.stdin = open(0, closefd=False)  # noqa: SIM115 - the process's own stdio
        sys.stdout = open(1, "w", closefd=False, buffering=1)  # noqa: SIM115
        sys.stderr = open(2, "w", closefd=False, buffering=1)  # noqa: SIM115
        sys.argv = [os.path.join(scratch, request["solution_path"])]
        channel = runner.VerdictChannel(3, token)
        try:
            runner.run(
                request,
                scratch,
                channel,
                lambda name: channel.emit("flag", name=name),
                prepared,
                probe,
                analysis,
            )
        except BaseException as exc:
            try:
                channel.emit("runner_error", message=f"{exc.__class__.__name__}: {runner.safe_repr(exc)}")
            except BaseException:
                os._exit(71)
        try:
            channel.emit("end")
            sys.stdout.flush()
            sys.stderr.flush()
        except BaseException:
            pass
        os._exit(0)

    def _supervise(self, pid, request, limits, token, started, verdict_r, out_r, err_r):
        deadline = started + float(limits["timeout_s"])
        max_output = int(limits["max_output_bytes"])
        stdout, stderr = OutputCapture(), OutputCapture()
        verdict = VerdictReader(token)
        streams = {out_r: stdout, err_r: stderr, verdict_r: verdict}
        pidfd = None
        if hasattr(os, "pidfd_open"):
            try:
                pidfd = os.pidfd_open(pid)
            except OSError:
                pidfd = None
        reason = None
        exited = False
        wait_status = rusage = None
        while not exited:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                reason = "timeout"
                break
            watch = list(streams) + ([pidfd] if pidfd is not None else [])
            ready, _, _ = select.select(watch, [], [], min(remaining, 0.05 if pidfd is None else remaining))
            for fd in ready:
                if fd == pidfd:
                    exited = True
                    continue
                data = os.read(fd, 65536)
                if not data:
                    os.close(fd)
                    del streams[fd]
                    continue
                streams[fd].feed(data) if fd == verdict_r else streams[fd].add(data)
            if stdout.total + stderr.total > max_output:
                reason = "output_limit"
                break
            if pidfd is None:
                finished, status, usage = os.wait4(pid, os.WNOHANG)
                if finished == pid:
                    exited, wait_status, rusage = True, status, usage
        if pidfd is not None:
            os.close(pidfd)
        # Kill whatever is left (the child, its orphans) before draining, so pipes reach EOF.
        self._kill_all()
        if wait_status is None:
            try:
                _, wait_status, rusage = os.wait4(pid, 0)
            except ChildProcessError:
                wait_status = None
        for fd, sink in list(streams.items()):
            self._drain(fd, sink, verdict_r)
            os.close(fd)
        self._reap_all()
        wall = time.monotonic() - started
        return self._result(request, verdict, stdout, stderr, reason, wait_status, rusage, wall)

    @staticmethod
    def _drain(fd, sink, verdict_fd):
        os.set_blocking(fd, False)
        deadline = time.monotonic() + 1.0
        while time.monotonic() < deadline:
            try:
                data = os.read(fd, 65536)
            except BlockingIOError:
                ready, _, _ = select.select([fd], [], [], 0.05)
                if not ready:
                    break
                continue
            if not data:
                break
            sink.feed(data) if fd == verdict_fd else sink.add(data)

    def _kill_all(self):
        """SIGKILL every other process in this PID namespace (only ever a private one)."""
        if not self.pid_ns_checked:
            return
        with contextlib.suppress(ProcessLookupError):
            os.kill(-1, signal.SIGKILL)

    @staticmethod
    def _reap_all():
        while True:
            try:
                pid, _ = os.waitpid(-1, 0)
            except ChildProcessError:
                return
            if pid == 0:
                return

    def _result(self, request, verdict, stdout, stderr, reason, wait_status, rusage, wall):
        exit_code = sig = None
        if wait_status is not None:
            if os.WIFSIGNALED(wait_status):
                sig = os.WTERMSIG(wait_status)
            elif os.WIFEXITED(wait_status):
                exit_code = os.WEXITSTATUS(wait_status)
        cpu = (rusage.ru_utime + rusage.ru_stime) if rusage else 0.0
        peak_mb = (rusage.ru_maxrss / 1024.0) if rusage else 0.0
        flags = list(verdict.flags)
        if verdict.flooded:
            flags.append("verdict_flood")
        test_ids = verdict.begin if verdict.begin is not None else list(verdict.order)
        missing = "timeout" if reason == "timeout" else "not_run"
        tests = [
            verdict.results.get(test_id)
            or {"test_id": test_id, "outcome": missing, "duration_s": 0.0, "message": "", "traceback": ""}
            for test_id in test_ids
        ]
        outcomes = [t["outcome"] for t in tests]
        message = ""
        timed_out = reason == "timeout" or sig == signal.SIGXCPU
        if timed_out and verdict.tests_done:
            flags.append("timing_incomplete")  # the tests finished; only coverage/timing ran over
            timed_out = False
        if reason == "output_limit":
            status, message = (
                "output_limit",
                f"output exceeded {int(request['limits']['max_output_bytes'])} bytes",
            )
        elif timed_out:
            status, message = "timeout", "exceeded the {}s time limit".format(request["limits"]["timeout_s"])
        elif "memory" in outcomes or (verdict.collect_error or {}).get("outcome") == "memory":
            status, message = (
                "memory",
                "ran out of memory (limit {} MB)".format(request["limits"]["memory_mb"]),
            )
        elif verdict.collect_error is not None:
            status = "error"
            message = str(verdict.collect_error.get("message", ""))
            if verdict.collect_error.get("traceback"):
                message += "\n" + str(verdict.collect_error["traceback"])
        elif not verdict.end:
            if sig is not None and peak_mb >= 0.9 * float(request["limits"]["memory_mb"]):
                status, message = "memory", f"killed by signal {sig} near the memory limit"
            elif sig is not None:
                status, message = "error", f"crashed: killed by signal {sig} ({_signal_name(sig)})"
            else:
                status = "error"
                message = f"the program exited before the tests finished (exit code {exit_code})"
                flags.append("early_exit")
        elif verdict.runner_error is not None:
            status, message = (
                "error",
                "test runner failed: {}".format(verdict.runner_error.get("message", "")),
            )
            flags.append("runner_disturbed")
        elif not tests:
            status, message = "error", "no tests were collected"
        elif all(o == "passed" for o in outcomes):
            status = "passed"
        else:
            status = "failed"
        return {
            "status": status,
            "message": message[:4000],
            "tests": tests,
            "stdout": stdout.text(),
            "stderr": stderr.text(),
            "output_truncated": stdout.truncated or stderr.truncated,
            "wall_s": wall,
            "cpu_s": cpu,
            "peak_memory_mb": peak_mb,
            "exit_code": exit_code,
            "signal": sig,
            "flags": flags,
            "runner": verdict.runner,
            "coverage": verdict.coverage,
            "timings_s": verdict.timing,
            "return_types": verdict.return_types,
        }


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def serve(config):
    # The protocol owns the original stdin/stdout; stray prints go to stderr instead.
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    if os.getpid() == 1:
        # As a container's init, signals without a handler are already kept from its processes;
        # SIGINT has CPython's handler, so a program of our uid could otherwise interrupt us.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker = Worker(config)
    try:
        info = worker.prepare()
    except Exception as exc:
        protocol.write_frame(
            channel_out, {"op": "hello", "ok": False, "error": f"{type(exc).__name__}: {exc}"}
        )
        return 2
    protocol.write_frame(channel_out, {"op": "hello", "ok": True, "info": info})
    while True:
        message = protocol.read_frame(channel_in)
        if message is None or message.get("op") == "shutdown":
            worker._kill_all()
            worker._reap_all()
            return 0
        if message.get("op") == "ping":
            protocol.write_frame(channel_out, {"op": "pong", "id": message.get("id")})
            continue
        if message.get("op") != "exec":
            protocol.write_frame(channel_out, {"op": "error", "id": message.get("id"), "error": "unknown op"})
            continue
        try:
            result = worker.execute(message["request"])
        except Exception as exc:
            result = {"status": "sandbox_error", "message": f"worker failure: {type(exc).__name__}: {exc}"}
        protocol.write_frame(channel_out, {"op": "result", "id": message.get("id"), "result": result})
        if worker.tainted:
            return 3  # something a run left behind could not be removed: let the host replace us


if __name__ == "__main__":
    sys.exit(serve(json.loads(sys.argv[1])))
