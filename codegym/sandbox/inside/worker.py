"""Warm sandbox worker: a long-lived, trusted process that runs one request at a time.

Started by a backend (bubblewrap/unshare locally, a container for docker) with a JSON config as its
only argument; it serves length-prefixed JSON frames on stdin/stdout (see protocol.py). It is PID 1
of its own PID namespace and holds only the capabilities it needs to switch uids, signal and clean
up (CAP_SETUID, CAP_SETGID, CAP_KILL, CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER).

Three kinds of processes work for it (see the README's "trust boundary"):
* the zygote (zygote.py), forked by boot.py before this module is even loaded, and launched once the
  sandbox is set up: the clean parent and the accountant of every program process;
* the harness (harness.py), forked from the worker for the first run (again after a run that went
  wrong), under the harness uid: serves run after run, holds each run's tests, runs them, streams
  every outcome here;
* per pass, a program process (program.py), under the program uid: imports the candidate and
  answers the harness's calls. It shares no descriptor with the harness or the worker except its
  call pipes, its stdout/stderr pipes, which the worker reads, and the read end of a pipe holding
  its own module's code, compiled here (a worker-written copy of what it would compile itself).

The worker enforces the wall-clock deadline and the output cap, assembles the result from the
harness's records and the zygote's accounting, and after every request makes the zygote kill every
program process and remove what they left (files, SysV IPC objects), kills the harness unless the
run ended cleanly (and anything else its uid runs), and wipes the run's directories: nothing the
program did outlives a run.

Safety: kill(-1) is only ever sent with a program or harness uid as the effective uid, and only
after checking that the worker is not in the host's PID namespace (the host passes its own
namespace id); the worker refuses to start otherwise.
"""

import ctypes
import gc
import json
import marshal
import os
import select
import signal
import socket
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import osutil
import protocol
import seccomp
import zygote
import zygote_wire

KEEP_OUTPUT_BYTES = 8 * 1024
MAX_PRECOMPILED_CHARS = 32 * 1024
MAX_PRECOMPILED_BYTES = 60 * 1024  # below a pipe's default 64 KiB buffer: written before the fork
MAX_RECORDS_BYTES = 16 * 1024 * 1024
MS_RDONLY, MS_NOSUID, MS_NODEV, MS_REMOUNT = 1, 2, 4, 32
MS_BIND, MS_REC, MS_PRIVATE = 4096, 16384, 1 << 18
MNT_DETACH = 2
FINISH_TIMEOUT_S = 15.0

_libc = ctypes.CDLL(None, use_errno=True)


# -- the unshare path's filesystem: an allowlist, the same view bubblewrap builds from its flags --


def _mount(source, target, fstype, flags, data=None):
    encode = lambda value: value.encode() if value is not None else None  # noqa: E731
    if _libc.mount(encode(source), encode(target), encode(fstype), ctypes.c_ulong(flags), encode(data)) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"mount {target}: {os.strerror(err)}")


def _bind(source, target, writable=False):
    if os.path.isdir(source):
        os.makedirs(target, exist_ok=True)
    else:
        os.makedirs(os.path.dirname(target), exist_ok=True)
        if not os.path.exists(target):
            with open(target, "w"):
                pass
    _mount(source, target, None, MS_BIND | MS_REC)
    if not writable:
        _mount(None, target, None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)


def apply_mount_plan(plan):
    """Build a new root from the allowlist (read-only binds, symlinks, tmpfs) and pivot into it."""
    _mount(None, "/", None, MS_REC | MS_PRIVATE)
    root = "/run"  # any existing directory will do: it is covered by the new root's tmpfs
    _mount("tmpfs", root, "tmpfs", MS_NOSUID | MS_NODEV, "mode=755")
    for entry in plan["entries"]:
        kind, target = entry[0], root + entry[1]
        if kind == "bind":
            _bind(entry[2], target)
        elif kind == "symlink":
            os.makedirs(os.path.dirname(target), exist_ok=True)
            os.symlink(entry[2], target)
        elif kind == "tmpfs":
            os.makedirs(target, exist_ok=True)
            _mount("tmpfs", target, "tmpfs", MS_NOSUID | MS_NODEV, entry[2])
        elif kind == "dir":
            os.makedirs(target, mode=0o755, exist_ok=True)
    os.makedirs(root + "/dev", exist_ok=True)
    _mount("tmpfs", root + "/dev", "tmpfs", MS_NOSUID, "mode=755")
    for device in ("null", "zero", "full", "random", "urandom", "tty"):
        if os.path.exists("/dev/" + device):
            _bind("/dev/" + device, f"{root}/dev/{device}", writable=True)
    for name, target in (
        ("fd", "/proc/self/fd"),
        ("stdin", "/proc/self/fd/0"),
        ("stdout", "/proc/self/fd/1"),
        ("stderr", "/proc/self/fd/2"),
    ):
        os.symlink(target, f"{root}/dev/{name}")
    os.makedirs(root + "/dev/shm", exist_ok=True)
    _mount("tmpfs", root + "/dev/shm", "tmpfs", MS_NOSUID | MS_NODEV, "size=64m,mode=1777")
    os.makedirs(root + "/proc", exist_ok=True)
    _mount("/proc", root + "/proc", None, MS_BIND | MS_REC)
    os.makedirs(root + "/oldroot", exist_ok=True)
    if _libc.syscall(155, root.encode(), (root + "/oldroot").encode()) != 0:  # pivot_root (x86_64)
        err = ctypes.get_errno()
        raise OSError(err, f"pivot_root: {os.strerror(err)}")
    os.chdir("/")
    if _libc.umount2(b"/oldroot", MNT_DETACH) != 0:
        raise OSError(ctypes.get_errno(), "umount2 /oldroot")
    os.rmdir("/oldroot")
    _mount(None, "/", None, MS_REMOUNT | MS_BIND | MS_RDONLY | MS_NOSUID)


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


class Records:
    """What the harness reported (a trusted channel: the program never holds it)."""

    def __init__(self):
        self.begin = None
        self.runner = ""
        self.results = {}
        self.order = []
        self.collect_error = None
        self.runner_error = None
        self.program_lost = None
        self.tests_done = False
        self.end = False
        self.coverage = None
        self.return_types = []
        self.flags = []
        self.case_returns = {}

    def add(self, record):
        kind = record.get("k")
        if kind == "begin":
            if self.begin is None:
                self.begin = [str(test_id) for test_id in record.get("tests", [])]
                self.runner = str(record.get("runner", ""))
            elif record.get("more"):  # the gated tests, run after a failure
                self.begin.extend(str(test_id) for test_id in record.get("tests", []))
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
                "message_holds_no_test_data": record.get("own") is True,
            }
            for key in ("input_head", "expected_head", "actual_head"):
                if record.get(key):
                    self.results[test_id][key] = str(record[key])[:1000]
        elif kind == "collect_error":
            self.collect_error = record
            if record.get("lost"):
                self.program_lost = self.program_lost or {"message": record.get("message", "")}
            if record.get("exit"):
                self.flag("exit_in_test")
        elif kind == "runner_error":
            self.runner_error = record
        elif kind == "program_lost":
            self.program_lost = record
        elif kind == "flag":
            self.flag(str(record.get("name")))
        elif kind == "tests_done":
            self.tests_done = True
        elif kind == "coverage":
            if record.get("complete"):
                self.coverage = {
                    key: record.get(key, [])
                    for key in ("executed_lines", "missing_lines", "executed_branches", "missing_branches")
                }
                self.coverage["complete"] = True
            else:
                self.coverage = {"complete": False}
        elif kind == "case_return":
            index = record.get("index")
            if isinstance(index, int) and 0 <= index < 1_000_000:
                self.case_returns[index] = record.get("value")
        elif kind == "returns":
            self.return_types = [str(name) for name in record.get("types", [])][:64]
        elif kind == "end":
            self.end = True

    def flag(self, name):
        if name not in self.flags:
            self.flags.append(name)


class Run:
    """One request's supervision state."""

    def __init__(self, request, deadline):
        self.request = request
        self.deadline = deadline
        self.records = Records()
        self.stdout = OutputCapture()
        self.stderr = OutputCapture()
        self.passes = []
        self.pending = None  # what the worker waits for from the zygote: ("spawn", fd) or ("end", None)
        self.out_pipes = None
        self.reason = None
        self.streams = {}
        self.harness_pid = None
        self.scratch = None
        self.code = False  # the candidate's compiled code (bytes) once made; None if it is not


class Worker:
    def __init__(self, config, forked_zygote=None):
        self.config = config
        self.forked_zygote = forked_zygote
        self.program_uid = config.get("program_uid")
        self.harness_uid = config.get("harness_uid")
        self.scratch_root = config.get("scratch_root", "/tmp/codegym")
        self.run_dir = os.path.join(self.scratch_root, "run")
        self.pid_ns_checked = False
        self.prepared_wires = {}
        self.harness_keys = set()
        self.harness_channel = None
        self.harness_pid = None
        self.wipe = [str(path) for path in config.get("wipe", [])]
        self.tainted = False
        self.taint_reason = ""
        self.zygote_pid = None
        self.zygote = None
        self.zygote_reader = osutil.FrameReader(decode=zygote_wire.decode_reply)
        self.zygote_encode = zygote_wire.RequestEncoder()
        self.stdlib_path = []

    def _taint(self, reason):
        self.tainted = True
        self.taint_reason = self.taint_reason or reason

    # -- start-up ---------------------------------------------------------------------------
    def prepare(self):
        host_ns = self.config.get("host_pid_namespace")
        own_ns = pid_namespace_id()
        if not host_ns or not own_ns or own_ns == host_ns:
            raise RuntimeError(f"refusing to run: not inside a private PID namespace ({own_ns})")
        self.pid_ns_checked = True
        osutil.set_process_name("cg-worker")
        # before the zygote and the harness are forked: they, and every program, stay on this CPU
        cpu = pin_to_cpu(self.config.get("cpu"))
        if self.config.get("mounts"):
            apply_mount_plan(self.config["mounts"])
        capabilities = None
        if os.getuid() == 0 and self.config.get("limit_capabilities"):
            capabilities = [osutil.CAPABILITIES[name] for name in osutil.WORKER_CAPABILITIES]
            osutil.capset(set(capabilities))
        if os.getpid() != 1:
            osutil.prctl(osutil.PR_SET_CHILD_SUBREAPER, 1)
        here = os.path.dirname(os.path.abspath(__file__))
        inside = self.config.get("inside_dir") or here
        self.stdlib_path = [p for p in sys.path if p and p not in (here, inside)]
        harness_site = list(self.config.get("harness_site") or [])
        program_site = list(self.config.get("program_site") or [])
        sys.path[:] = [inside, *self.stdlib_path, *harness_site]
        os.makedirs(self.scratch_root, mode=0o755, exist_ok=True)
        # Few malloc arenas: each thread's arena would otherwise reserve 64 MB of the address-space limit.
        osutil.mallopt(osutil.M_ARENA_MAX, 2)
        zygote_config = {
            "program_uid": self.program_uid,
            "program_path": [*self.stdlib_path, *program_site],
            "program_wipe": list(self.config.get("program_wipe", [])),
            # what this process set up on itself, for the zygote to do the same on itself
            "cwd": os.getcwd(),
            "path": list(sys.path),
            "cpu": cpu,
            "capabilities": capabilities,
        }
        preload = list(self.config.get("preload", []))
        forked = self.forked_zygote or zygote.prefork()  # worker.py run as a script forks it here
        self.forked_zygote = None
        self.zygote_pid, channel = zygote.launch(forked, zygote_config, preload, seccomp.encoded_filters())
        self.zygote = socket.socket(fileno=channel.detach())
        self.zygote.setblocking(True)
        # the harness side's modules are imported once here, after the zygote left with a small heap
        import coverage_probe
        import harness  # noqa: F401
        import remote  # noqa: F401

        for name in self.config.get("harness_preload", []):
            try:
                __import__(name)
            except Exception:
                pass
        if "coverage" in preload:  # a pool that measures coverage (~50 ms: worth it only there)
            try:
                coverage_probe.warm_parser()
            except Exception:
                pass
        # Objects that exist now are never collected; freezing them keeps the collector from
        # writing to every inherited page in each forked harness (copy-on-write faults are costly).
        gc.freeze()
        return {
            "python": sys.version.split()[0],
            "pid": os.getpid(),
            "uid": os.getuid(),
            "program_uid": self.program_uid,
            "harness_uid": self.harness_uid,
            "pid_namespace": own_ns,
            "preloaded": preload,
            "cpu": cpu,
        }

    # -- one execution -----------------------------------------------------------------------
    def _layout(self):
        run = self.run_dir
        return {
            "run": run,
            "repo": os.path.join(run, "repo"),
            "template": os.path.join(run, "template"),
            "scratch": os.path.join(run, "scratch"),
            "tests": os.path.join(run, "tests"),
            "harness_path": [*self.stdlib_path, *(self.config.get("harness_site") or [])],
        }

    def _write_files(self, request, layout):
        """The run's directories persist between runs (emptied after each): the repo's pristine copy
        and the template (root's, read-only to others), the program's scratch and the harness's
        test directory (each readable by its own uid only)."""
        if not os.path.isdir(layout["tests"]):
            osutil.remove_tree(layout["run"])
            os.makedirs(layout["run"], mode=0o755)
            for key in ("repo", "template"):
                os.makedirs(layout[key], mode=0o755)
            os.makedirs(os.path.join(layout["template"], ".tmp"), mode=0o755)  # the program's TMPDIR
            for key, owner in (("scratch", self.program_uid), ("tests", self.harness_uid)):
                os.makedirs(layout[key], mode=0o700)
                if owner is not None:
                    os.chown(layout[key], owner, owner)
        solution = request["solution_path"]
        for relative, content in request["files"].items():
            targets = [layout["template"]] + ([layout["repo"]] if relative != solution else [])
            data = content.encode("utf-8", "surrogatepass")  # what text mode writes on POSIX
            for base in targets:
                path = os.path.join(base, relative)
                directory = os.path.dirname(path)
                if directory != base:
                    os.makedirs(directory, mode=0o755, exist_ok=True)
                _write_file(path, data)

    def _empty_run(self, layout):
        clean = osutil.empty_directory(layout["repo"]) and osutil.empty_directory(layout["tests"])
        for name in os.listdir(layout["template"]):
            if name != ".tmp":
                path = os.path.join(layout["template"], name)
                osutil.remove_tree(path)
                clean = clean and not os.path.lexists(path)
        if not clean:
            self._taint("the run's directories could not be emptied")

    def _harness_message(self, request, run):
        """The run for the harness, with the compiled tests when it does not hold them yet (the host
        sends them with a test set's first request to this worker; the worker keeps them for a
        harness that restarts)."""
        sent, key = request.pop("prepared", None), request.pop("prepared_key", None)
        if sent is not None:
            key = sent.get("key")
            if key:
                self.prepared_wires[key] = sent
                while len(self.prepared_wires) > 512:
                    del self.prepared_wires[next(iter(self.prepared_wires))]
        message = {"request": request, "deadline": run.deadline, "prepared_key": key}
        if key is not None and key not in self.harness_keys:
            wire = sent if sent is not None else self.prepared_wires.get(key)
            if wire is not None:
                message["prepared"] = wire
                self.harness_keys.add(key)
        return message

    def _start_harness(self, layout):
        """Fork the (persistent) harness; it serves run after run until a run goes wrong."""
        import harness

        ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
        pid = os.fork()
        if pid == 0:
            ours.close()
            self.zygote.close()
            harness.serve(theirs, layout, self.harness_uid)
            os._exit(70)  # not reached
        theirs.close()
        self.harness_pid, self.harness_channel = pid, ours
        self.harness_keys = set()

    def _stop_harness(self):
        if self.harness_pid is None:
            return
        _kill(self.harness_pid)
        try:
            os.waitpid(self.harness_pid, 0)
        except ChildProcessError:
            pass
        self.harness_channel.close()
        self.harness_pid = self.harness_channel = None
        self.harness_keys = set()

    def execute(self, request):
        layout = self._layout()
        try:
            self._write_files(request, layout)
        except (OSError, UnicodeError) as exc:
            self._empty_run(layout)
            return {"status": "sandbox_error", "message": f"could not prepare the run's files: {exc}"}
        started = time.monotonic()
        run = Run(request, started + float(request["limits"]["timeout_s"]))
        run.scratch = layout["scratch"]
        if self.harness_pid is None:
            self._start_harness(layout)
        run.harness_pid = self.harness_pid
        control = self.harness_channel
        try:
            control.setblocking(True)
            osutil.send_message(control, self._harness_message(request, run))
            self._supervise(run, control, self.harness_pid)
        except OSError as exc:
            run.records.runner_error = {"message": f"the harness channel failed: {exc}"}
        finally:
            result = self._finish(run, layout, started)
        return result

    # -- supervision -------------------------------------------------------------------------
    def _supervise(self, run, control, harness_pid):
        limits = run.request["limits"]
        max_output = int(limits["max_output_bytes"])
        reader = osutil.FrameReader(MAX_RECORDS_BYTES)
        control.setblocking(False)
        harness_fd = _pidfd(harness_pid)
        streams = run.streams
        channel_open = True
        try:
            while True:
                remaining = run.deadline - time.monotonic()
                if remaining <= 0:
                    run.reason = "timeout"
                    return
                watch = [self.zygote.fileno(), *streams]
                if channel_open:
                    watch.append(control.fileno())
                if harness_fd is not None:
                    watch.append(harness_fd)
                ready, _, _ = select.select(
                    watch, [], [], min(remaining, 0.05 if harness_fd is None else remaining)
                )
                for fd in ready:
                    if fd in streams:
                        data = os.read(fd, 65536)
                        if data:
                            streams[fd].add(data)
                        else:
                            os.close(fd)
                            del streams[fd]
                if run.stdout.total + run.stderr.total > max_output:
                    run.reason = "output_limit"
                    return
                if self.zygote.fileno() in ready and not self._zygote_readable(run, control):
                    return
                if channel_open and control.fileno() in ready:
                    try:
                        data = control.recv(1 << 20)
                    except BlockingIOError:
                        data = None
                    if data == b"":
                        channel_open = False  # the harness is exiting; its pidfd says when it is gone
                        if harness_fd is None:
                            return
                    elif data:
                        for record in reader.feed(data):
                            if not self._harness_record(run, record, control, streams):
                                return
                if harness_fd is not None and harness_fd in ready:
                    return  # the harness exited (everything it sent was read above or is in `reader`)
                if harness_fd is None:
                    finished, _status = os.waitpid(harness_pid, os.WNOHANG)
                    if finished == harness_pid:
                        return
        finally:
            if harness_fd is not None:
                os.close(harness_fd)
            if channel_open:
                # take what is still buffered in the channel
                try:
                    while True:
                        data = control.recv(1 << 20)
                        if not data:
                            break
                        for record in reader.feed(data):
                            for item in (
                                record.get("records", [record]) if record.get("k") == "batch" else [record]
                            ):
                                run.records.add(item)
                except OSError:
                    pass

    def _harness_record(self, run, record, control, streams):
        kind = record.get("k")
        if kind == "batch":
            keep_going = True
            for item in record.get("records", []):
                if isinstance(item, dict) and keep_going:
                    keep_going = self._harness_record(run, item, control, streams)
            return keep_going
        if kind == "spawn":
            self._spawn(run, record, control, streams)
            return True
        if kind == "mark_pass":
            run.passes[-1]["timed"] = bool(record.get("timed")) if run.passes else False
            layout = self._layout()
            message = {
                "op": "mark",
                "kind": str(record.get("next", "")),
                "memory_mb": run.request["limits"]["memory_mb"],
                "scratch": layout["scratch"],
                "template": layout["template"],
            }
            self._send_zygote(run, message)
            run.pending = ("mark", None)
            return True
        if kind == "end_pass":
            run.passes[-1]["timed"] = bool(record.get("timed")) if run.passes else False
            run.passes[-1]["complete"] = bool(record.get("complete", True)) if run.passes else False
            self._send_zygote(run, {"op": "end"})
            run.pending = ("end", None)
            return True
        run.records.add(record)
        return kind not in ("end", "runner_error")  # the harness reports nothing after either

    def _spawn(self, run, record, control, streams):
        kind = str(record.get("kind", ""))
        main = bool(record.get("main"))
        if main:  # a case process: one socket to the harness, which sends it each case's pipes
            ours, theirs = socket.socketpair(socket.AF_UNIX, socket.SOCK_STREAM)
            fds, harness_ends = [theirs.detach()], [ours.detach()]
        else:  # the call channel: a pipe each way
            to_program_r, to_program_w = os.pipe()
            to_harness_r, to_harness_w = os.pipe()
            fds, harness_ends = [to_program_r, to_harness_w], [to_harness_r, to_program_w]
        if not main and kind == "verdict" and run.out_pipes is None:
            out_r, out_w = os.pipe()
            err_r, err_w = os.pipe()
            run.out_pipes = (out_r, err_r)
            streams[out_r] = run.stdout
            streams[err_r] = run.stderr
            os.set_blocking(out_r, False)
            os.set_blocking(err_r, False)
            fds += [out_w, err_w]
        layout = self._layout()
        code_fd = None if main else self._code_pipe(run, layout)
        if code_fd is not None:
            fds.append(code_fd)
        message = {
            "code": code_fd is not None,
            "op": "spawn",
            "kind": kind,
            "coverage": bool(record.get("coverage")),
            "standby": bool(record.get("standby")),
            "limits": run.request["limits"],
            "module": os.path.splitext(run.request["solution_path"])[0].replace("/", "."),
            "solution_path": run.request["solution_path"],
            "scratch": layout["scratch"],
            "template": layout["template"],
            "keep_pids": [run.harness_pid],
            "main": main,
            "fresh": record.get("fresh", True) is not False,
        }
        self._send_zygote(run, message, fds)
        for fd in fds:
            os.close(fd)  # the zygote holds its own copies now
        # the pass's record joins run.passes once the zygote has answered: its answer accounts for
        # the pass this spawn ended, which must not land in the new pass's record
        run.pending = ("spawn", tuple(harness_ends), {"kind": kind})

    def _code_pipe(self, run, layout):
        """The read end of a pipe holding the candidate module's code, compiled here and marshalled,
        or None (the program then compiles it itself). Compiling in a freshly forked program process
        costs ~150 copy-on-write faults (the compiler's allocations land on inherited pages); here,
        in a long-lived process, it costs only the compile. Only small top-level modules: their
        compilation is quick whatever they contain, and a syntax error is left for the program to
        raise as its own."""
        if run.code is False:
            run.code = None
            solution = run.request["solution_path"]
            source = run.request["files"].get(solution)
            if (
                isinstance(source, str)
                and len(source) <= MAX_PRECOMPILED_CHARS
                and "/" not in solution
                and solution.endswith(".py")
            ):
                try:
                    data = source.encode("utf-8", "surrogatepass")  # the bytes on disk
                    filename = os.path.join(layout["scratch"], solution)
                    code = marshal.dumps(compile(data, filename, "exec", dont_inherit=True))
                    if len(code) <= MAX_PRECOMPILED_BYTES:
                        run.code = code
                except Exception:  # SyntaxError, RecursionError, MemoryError...: the program raises it
                    pass
        if run.code is None:
            return None
        read_fd, write_fd = os.pipe()
        try:
            os.write(write_fd, run.code)  # fits the pipe's buffer (MAX_PRECOMPILED_BYTES)
        finally:
            os.close(write_fd)
        return read_fd

    def _send_zygote(self, run, message, fds=()):
        message.setdefault("keep_pids", [run.harness_pid])
        osutil.send_message(self.zygote, message, fds, encode=self.zygote_encode)

    def _zygote_readable(self, run, control):
        try:
            data = self.zygote.recv(1 << 20)
        except BlockingIOError:
            return True
        if not data:
            self._taint("line 498")
            run.records.runner_error = {"message": "the zygote went away"}
            return False
        for reply in self.zygote_reader.feed(data):
            self._zygote_reply(run, reply, control)
        return True

    def _zygote_reply(self, run, reply, control):
        pending, run.pending = run.pending, None
        previous = reply.get("previous")
        if isinstance(previous, dict) and previous.get("kind") is not None:
            self._record_pass(run, previous)
        if pending is not None and pending[0] == "spawn":
            run.passes.append(pending[2])
        if isinstance(previous, dict) and previous.get("clean") is False:
            self._taint("line 511")
        if pending is None:
            return
        control.setblocking(True)
        try:
            if pending[0] == "spawn":
                harness_ends = pending[1]
                if reply.get("pid") is None:
                    osutil.send_message(control, {"pid": None, "error": reply.get("error", "spawn failed")})
                else:
                    osutil.send_message(control, {"pid": reply["pid"]}, list(harness_ends))
                for fd in harness_ends:
                    os.close(fd)
            elif pending[0] == "mark":
                continued = isinstance(previous, dict) and previous.get("continued") is True
                stats = run.passes[-1].get("stats") if continued and run.passes else None
                if continued:
                    run.passes.append({"kind": str(previous.get("next", ""))})
                    self._close_output(run)
                osutil.send_message(control, {"stats": stats or {}, "continued": continued})
            else:
                stats = run.passes[-1].get("stats") if run.passes else None
                osutil.send_message(control, {"stats": stats or {}})
        except OSError:
            pass
        finally:
            control.setblocking(False)

    @staticmethod
    def _close_output(run):
        """The verdict pass's output is complete once its process goes on with another pass: what is
        in the pipes is kept, and nothing written later is (the program points its standard streams
        at /dev/null for that pass; a copy of the old descriptor it kept finds the pipe closed)."""
        for fd in run.out_pipes or ():
            sink = run.streams.pop(fd, None)
            if sink is None:
                continue
            try:
                while data := os.read(fd, 65536):
                    sink.add(data)
            except BlockingIOError:
                pass
            os.close(fd)

    @staticmethod
    def _record_pass(run, stats):
        for record in reversed(run.passes):
            if "stats" not in record:
                record["stats"] = stats
                return

    # -- the end of a run ------------------------------------------------------------------
    def _finish(self, run, layout, started):
        # 1. the harness: it goes on to the next run only if this one ended cleanly
        if not run.records.end or run.reason is not None:
            self._stop_harness()
        # 2. a zygote reply still on its way, then every program process, accounted and cleaned up
        try:
            if run.pending is not None:
                self._zygote_final(run, self._read_zygote_reply())
            osutil.send_message(
                self.zygote,
                {"op": "finish", "scratch": layout["scratch"], "keep_pids": []},
                encode=self.zygote_encode,
            )
            self._zygote_final(run, self._read_zygote_reply())
        except (OSError, ValueError):
            self._taint("line 555")
        finally:
            if run.pending is not None and run.pending[0] == "spawn":
                for fd in run.pending[1]:
                    os.close(fd)
            run.pending = None
        # 3. the output the program processes left in their pipes, now that they are gone
        for fd, sink in list(run.streams.items()):
            _drain(fd, sink)
            os.close(fd)
        # 4. anything the harness uid still runs, then the run's files
        self._kill_harness_uid()
        self._empty_run(layout)
        self._wipe()
        wall = time.monotonic() - started
        return self._result(run, wall)

    def _read_zygote_reply(self):
        """The zygote's next reply (blocking, bounded: it kills and reaps within seconds)."""
        deadline = time.monotonic() + FINISH_TIMEOUT_S
        while True:
            replies = self.zygote_reader.feed(b"")
            if replies:
                return replies[0]
            remaining = deadline - time.monotonic()
            ready, _, _ = select.select([self.zygote.fileno()], [], [], max(0.0, remaining))
            if not ready:
                raise OSError("the zygote did not answer")
            data = self.zygote.recv(1 << 20)
            if not data:
                raise OSError("the zygote went away")
            self.zygote_reader.buffer += data

    def _zygote_final(self, run, reply):
        previous = reply.get("previous")
        if isinstance(previous, dict) and previous.get("kind") is not None:
            self._record_pass(run, previous)
        if isinstance(previous, dict) and previous.get("clean") is False:
            self._taint("line 592")
        if run.pending is not None and run.pending[0] == "spawn":
            run.passes.append(run.pending[2])
            for fd in run.pending[1]:
                os.close(fd)
        run.pending = None

    def _kill_harness_uid(self):
        """Kill what the harness left running (it is trusted, so this is rare: a test that started a
        subprocess). Its orphans are our children: scan, kill, reap until none is left."""
        for _ in range(200):
            keep = {1, os.getpid(), self.zygote_pid, self.harness_pid}
            stragglers = [
                pid for pid in osutil.other_pids(keep) if _uid_of(pid) not in (None, self.program_uid)
            ]
            if not stragglers:
                return
            for pid in stragglers:
                _kill(pid)
            _reap_children()
            time.sleep(0.001)
        self._taint("processes of the harness survived")

    def _wipe(self):
        """Empty the `wipe` directories (docker: the container's writable places outside /tmp)."""
        for path in self.wipe:
            if not osutil.empty_directory(path):
                self._taint("line 616")

    # -- the result --------------------------------------------------------------------------
    def _result(self, run, wall):
        request, records = run.request, run.records
        verdict = next((p.get("stats") or {} for p in run.passes if p.get("kind") == "verdict"), {})
        exit_code, sig = verdict.get("exit_code"), verdict.get("signal")
        peak_mb = float(verdict.get("peak_memory_mb") or 0.0)
        cpu = float(verdict.get("cpu_s") or 0.0)
        flags = list(records.flags)
        test_ids = records.begin if records.begin is not None else list(records.order)
        missing = "timeout" if run.reason == "timeout" else "not_run"
        tests = [
            records.results.get(test_id)
            or {"test_id": test_id, "outcome": missing, "duration_s": 0.0, "message": "", "traceback": ""}
            for test_id in test_ids
        ]
        gated = set(request.get("gated_test_files") or ())
        for test in tests:  # the reward's visible tests come as the request's gated files
            if test["test_id"].split("::")[0] in gated:
                test["suite"] = "visible"
        outcomes = [t["outcome"] for t in tests]
        memory_mb = float(request["limits"]["memory_mb"])
        message = ""
        fault = None
        case_run = bool(request.get("cases"))
        if case_run:  # a pass per stdio case, or more than one after a call ran over
            stats = [p.get("stats") or {} for p in run.passes]
            cpu = sum(float(s.get("cpu_s") or 0.0) for s in stats)
            peak_mb = max([float(s.get("peak_memory_mb") or 0.0) for s in stats] or [0.0])
            sig = signal.SIGXCPU if sig == signal.SIGXCPU else None
        timed_out = (run.reason == "timeout" and not records.tests_done) or sig == signal.SIGXCPU
        ran_out_of_memory = "memory" in outcomes or (records.collect_error or {}).get("outcome") == "memory"
        if timed_out and ran_out_of_memory and not case_run:
            # the memory limit was hit first (a deadline is always the run's last event): the verdict
            # must not depend on how soon a loaded machine or a CPU quota (docker) reaches the deadline
            timed_out = False
        if run.reason == "timeout" and records.tests_done:
            flags.append("timing_incomplete")  # the tests finished; only coverage/timing ran over
        if run.reason == "output_limit":
            status = "output_limit"
            message = f"output exceeded {int(request['limits']['max_output_bytes'])} bytes"
        elif timed_out:
            status, message = "timeout", "exceeded the {}s time limit".format(request["limits"]["timeout_s"])
        elif case_run and records.end and records.runner_error is None:
            # judged like an online judge: the verdict of the first case that did not pass
            failing = next((t for t in tests if t["outcome"] != "passed"), None)
            if not tests:
                status, message = "error", "no cases were run"
            elif failing is None:
                status = "passed"
            else:
                status = _CASE_STATUS.get(failing["outcome"], "failed")
                message = f"{failing['test_id']}: {failing['message'] or failing['outcome']}"
        elif ran_out_of_memory:
            status, message = "memory", f"ran out of memory (limit {request['limits']['memory_mb']:g} MB)"
        elif records.program_lost is not None and sig is not None and peak_mb >= 0.9 * memory_mb:
            status, message = "memory", f"killed by signal {sig} near the memory limit"
        elif records.program_lost is not None or (records.collect_error or {}).get("lost"):
            status = "error"
            lost = records.program_lost or {}
            if sig is not None:
                message = f"crashed: killed by signal {sig} ({_signal_name(sig)})"
            elif (exit_code is not None and exit_code != 0) or "ended" in str(lost.get("message", "")):
                message = f"the program exited before the tests finished (exit code {exit_code})"
                flags.append("early_exit")
            else:
                message = str(lost.get("message", "")) or "the program process stopped answering"
        elif records.collect_error is not None:
            status = "error"
            message = str(records.collect_error.get("message", ""))
            if records.collect_error.get("traceback"):
                message += "\n" + str(records.collect_error["traceback"])
        elif records.runner_error is not None and records.runner_error.get("pack_fault"):
            status, message = "sandbox_error", str(records.runner_error.get("message", ""))
        elif records.runner_error is not None or not records.end:
            status, fault = "sandbox_error", "harness"
            message = "the harness failed: {}".format(
                (records.runner_error or {}).get("message", "it exited early")
            )
        elif not tests:
            status, message = "error", "no tests were collected"
        elif all(o == "passed" for o in outcomes):
            status = "passed"
        else:
            status = "failed"
        timings = [
            float(p["stats"]["cpu_s"])
            for p in run.passes
            if p.get("timed") and p.get("complete", True) and isinstance(p.get("stats"), dict)
        ]
        if case_run and status == "passed" and request.get("timing_repeats"):
            timings = [cpu]  # every case's CPU time, measured by the zygote: the run is its own sample
        result = {
            "status": status,
            "message": message[:4000],
            "tests": tests,
            "stdout": run.stdout.text(),
            "stderr": run.stderr.text(),
            "output_truncated": run.stdout.truncated or run.stderr.truncated,
            "wall_s": wall,
            "cpu_s": cpu,
            "peak_memory_mb": peak_mb,
            "exit_code": exit_code,
            "signal": sig,
            "flags": flags,
            "runner": records.runner,
            "coverage": records.coverage,
            "timings_s": timings,
            "return_types": records.return_types,
        }
        if records.case_returns:
            result["case_returns"] = [records.case_returns.get(i) for i in range(len(tests))]
        if fault:
            result["fault"] = fault
        return result


_CASE_STATUS = {
    "failed": "failed",
    "error": "error",
    "timeout": "timeout",
    "memory": "memory",
    "output_limit": "output_limit",
}


def _write_file(path, data):
    """Create or truncate PATH with DATA (mode 0666 less the umask, as open() would), through bare
    descriptors: a text file object (its buffer, codec and isatty/seek calls) cost ~4x as much."""
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC | os.O_CLOEXEC, 0o666)
    try:
        view = memoryview(data)
        while view:
            view = view[os.write(fd, view) :]
    finally:
        os.close(fd)


def _uid_of(pid):
    """The real uid of a live process (None for a zombie or a process that is gone)."""
    try:
        with open(f"/proc/{pid}/status") as handle:
            status = handle.read()
    except OSError:
        return None
    if "\nState:\tZ" in status:
        return None
    for line in status.splitlines():
        if line.startswith("Uid:"):
            return int(line.split()[1])
    return None


def _reap_children():
    """Reap exited children except the zygote (the zygote never exits while we run)."""
    while True:
        try:
            pid, _ = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def _pidfd(pid):
    if hasattr(os, "pidfd_open"):
        try:
            return os.pidfd_open(pid)
        except OSError:
            return None
    return None


def _kill(pid):
    try:
        os.kill(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass


def _drain(fd, sink):
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
        sink.add(data)


def pin_to_cpu(cpu):
    """Run on `cpu` only (see codegym/sandbox/placement.py: the harness's calls to the program then
    stay on one CPU); the CPU pinned to, or None when none was asked for or it is not ours to use
    (outside a container's cpuset, say): the worker then runs where the scheduler puts it."""
    if type(cpu) is not int:
        return None
    try:
        os.sched_setaffinity(0, {cpu})
    except (OSError, ValueError, OverflowError):
        return None
    return cpu


def _signal_name(number):
    try:
        return signal.Signals(number).name
    except ValueError:
        return f"signal {number}"


def serve(config, forked_zygote=None):
    # The protocol owns the original stdin/stdout; stray prints go to stderr instead.
    channel_in = os.fdopen(os.dup(0), "rb", buffering=0)
    channel_out = os.fdopen(os.dup(1), "wb")
    os.dup2(os.open(os.devnull, os.O_RDONLY), 0)
    os.dup2(2, 1)
    if os.getpid() == 1:
        # As a container's init, signals without a handler are already kept from its processes;
        # SIGINT has CPython's handler, so a process of our uid could otherwise interrupt us.
        signal.signal(signal.SIGINT, signal.SIG_IGN)
    worker = Worker(config, forked_zygote)
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
            sys.stderr.write(f"worker: tainted ({worker.taint_reason})\n")
            return 3  # something a run left behind could not be removed: let the host replace us


def main(config_text, forked_zygote=None):
    """Serve with the JSON config CONFIG_TEXT until told to stop, then exit (see boot.py, which
    passes the zygote it forked first; without one, it is forked from here)."""
    exit_code = serve(json.loads(config_text), forked_zygote)
    try:
        sys.stderr.flush()
    except (OSError, ValueError):  # the host went away: nothing to tell it
        pass
    # Without the interpreter's teardown (~12 ms for this process's modules, paid by every pool's
    # close): the frames are written, and the kernel closes the descriptors either way.
    os._exit(exit_code)


if __name__ == "__main__":  # boot.py is the way in (compiled); this one compiles the worker first
    main(sys.argv[1])
