"""The program zygote: the clean parent of every program process, and its accountant.

The worker's process forks the zygote first thing (boot.py: `prefork`), before it has loaded the
worker's own modules or read any request, and `launch`es it once the sandbox is set up; so the
zygote's memory never held another run's tests, code or results — and neither does any program
process, since each is forked from it — and holds none of the worker's modules. The zygote never
runs program code itself.

Per pass (the verdict pass, a coverage pass, each timing repeat) the worker asks it to `spawn` a
program process. First it ends the previous pass: with the program's uid as its effective uid it
SIGKILLs every process of that uid (kill(-1) under the kernel's task-list lock: nothing forks
past it), removes every SysV IPC object and every file of that uid in /dev/shm and /tmp, empties
the scratch directory and copies the program's files into it afresh. Then it forks the program
process, which sets itself up (session, descriptors, oom_score_adj 1000, rlimits, environment,
no_new_privs, its own uid, the seccomp filter) before a single line of the program runs. A pass may
instead end with `mark` (_mark_pass): its process goes on with the next pass, the coverage pass.

Accounting: the zygote is the subreaper of every program process, so every one of them — threads
and children included — is reaped by it or by a parent that it reaps in turn, and wait4's rusage
is exact. A pass's CPU time is that sum minus the program process's own CPU before it started
importing the candidate (read through its process CPU clock while it waits for the go-ahead); a pass
that ends with `mark` reads that clock again instead, which is exact only for a process that never
had a child (the only kind `mark` lets go on).
"""

import _signal
import _socket
import contextlib
import fcntl
import gc
import marshal
import os
import resource
import select
import signal
import stat
import sys
import time

import mainrun  # loaded here: a program process's import path no longer holds this folder
import osutil
import zygote_wire

SANDBOX_PATH = "/usr/local/bin:/usr/bin:/bin"
SETUP_TIMEOUT_S = 10.0
REAP_TIMEOUT_S = 5.0


class Zygote:
    def __init__(self, config, channel, devnull):
        self.config = config
        self.channel = channel
        self.devnull = devnull  # /dev/null, read-write: what a program gets for the streams it is not given
        self.program_uid = config.get("program_uid")
        self.program_path = list(config.get("program_path") or [])
        self.wipe = [str(p) for p in config.get("program_wipe", [])]
        self.pass_state = None
        self.scratch_made = None  # the scratch tree as _fresh_files made it last (see there)
        self.dirty = True
        self.keep_pids = ()
        self.coverage_probes = {}
        self.module_templates = {}
        self.environment_home = None
        self.decode = zygote_wire.RequestDecoder()
        self.no_new_privs = False
        self.sigchld_frozen = False  # seccomp's second filter is on the zygote (install_filters)
        self.wakeup_r, self.wakeup_w = os.pipe()
        os.set_blocking(self.wakeup_w, False)

    # -- main loop -------------------------------------------------------------------------
    def serve(self):
        # under the second seccomp filter only CPython's table changes here (install_filters set the
        # kernel's action); without it, this installs CPython's C handler
        signal.signal(signal.SIGCHLD, _child_exited)
        signal.set_wakeup_fd(self.wakeup_w, warn_on_full_buffer=False)
        while True:
            ready, _, _ = select.select([self.channel, self.wakeup_r], [], [])
            if self.wakeup_r in ready:
                self._drain_wakeup()
                self._reap()
            if self.channel not in ready:
                continue
            message, fds = osutil.receive_message(self.channel, max_fds=5, decode=self.decode)
            if message is None:
                self._end_pass()
                return 0
            op = message.get("op")
            self.keep_pids = tuple(message.get("keep_pids") or ())
            try:
                if op == "spawn":
                    reply = self._spawn(message, fds)
                elif op == "mark":
                    reply = {"op": "marked", "previous": self._mark_pass(message)}
                elif op == "end":
                    reply = {"op": "ended", "previous": self._end_pass()}
                elif op == "finish":
                    previous = self._end_pass()
                    previous["clean"] = self._wipe(message.get("scratch")) and previous["clean"]
                    reply = {"op": "finished", "previous": previous}
                else:
                    reply = {"op": "error", "error": f"unknown op {op!r}"}
            except Exception as exc:  # our failure, reported as such
                reply = {"op": "error", "error": f"{type(exc).__name__}: {exc}"}
            finally:
                for fd in fds:
                    os.close(fd)
            osutil.send_message(self.channel, reply, encode=zygote_wire.encode_reply)

    # -- passes ----------------------------------------------------------------------------
    def _reap(self):
        """Reap finished program processes into the current pass's account; True while children
        (program processes: all of them descend from us, and we are their subreaper) remain."""
        state = self.pass_state
        while True:
            try:
                pid, status, usage = os.wait4(-1, os.WNOHANG)
            except ChildProcessError:
                return False
            if pid == 0:
                return True
            if state is None:
                continue
            state["cpu"] += usage.ru_utime + usage.ru_stime
            state["maxrss_kb"] = max(state["maxrss_kb"], usage.ru_maxrss)
            if pid == state["pid"]:
                state["status"] = status

    def _kill(self):
        """SIGKILL every program process and reap them all into the pass's account. With no child
        left, no program process is left (each descends from us, orphans come back to us)."""
        if not self._reap():
            return True
        deadline = time.monotonic() + REAP_TIMEOUT_S
        next_round = 0.0
        while True:
            now = time.monotonic()
            if now >= next_round:
                self._signal_all()
                next_round = now + 0.05
            if not self._reap():
                return True
            if now > deadline:
                return False
            self._wait_for_child(min(next_round, deadline) - now)

    def _wait_for_child(self, timeout):
        """Sleep until a child exits (SIGCHLD writes to the wakeup pipe) or `timeout` passes: a
        killed process takes its exit's time, and polling overslept it by a sleep each round."""
        ready, _, _ = select.select([self.wakeup_r], [], [], max(0.0, timeout))
        if ready:
            self._drain_wakeup()

    def _drain_wakeup(self):
        """Empty the wakeup pipe once select says it is readable (the read cannot block then)."""
        os.read(self.wakeup_r, 4096)

    def _signal_all(self):
        if self.program_uid is None:
            self._kill_by_scan()
            return
        # kill(-1) as the program's uid: every process of that uid, atomically with respect to fork
        with osutil.acting_as(self.program_uid):
            try:
                os.kill(-1, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass

    def _wipe(self, scratch, keep_scratch=False):
        """Remove what program processes left behind (as the program's uid, once none is left); with
        `keep_scratch`, all of it but the scratch directory (see _fresh_files)."""
        if not keep_scratch:
            self.scratch_made = None
        if not self.dirty:
            return True
        complete = True
        with osutil.acting_as(self.program_uid):
            osutil.sweep_sysv_ipc()
            for path in self.wipe:
                if not osutil.empty_directory(path, owner=self.program_uid):
                    sys.stderr.write(f"zygote: could not empty {path}\n")
                    complete = False
            if keep_scratch:
                scratch = None
            if scratch:
                with contextlib.suppress(OSError):
                    os.chmod(scratch, 0o700)  # the program owns it and may have made it unwritable
            if scratch and not osutil.empty_directory(scratch):
                sys.stderr.write(f"zygote: could not empty {scratch}\n")
                complete = False
            if scratch and not osutil.clear_xattrs(scratch):
                sys.stderr.write(f"zygote: could not clear the attributes of {scratch}\n")
                complete = False
        for path in [*self.wipe, *([scratch] if scratch else [])]:
            # the directories outlive the run and the program chose when to touch them: their times
            # would carry a few bits to the next one
            with contextlib.suppress(OSError):
                os.utime(path, ns=(0, 0), follow_symlinks=False)
        self.dirty = not complete
        return complete

    def _kill_by_scan(self):
        """Without a uid of its own the program shares ours: kill every process but the worker,
        the zygote and the harness (the worker names it)."""
        keep = {1, os.getpid(), os.getppid(), *self.keep_pids}
        for pid in osutil.other_pids(keep):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

    def _end_pass(self):
        state = self.pass_state
        killed = self._kill()  # reaps the pass's processes into `state`
        self.pass_state = None
        if not killed:
            sys.stderr.write("zygote: program processes survived SIGKILL\n")
        if state is None:
            return {"clean": killed}
        status = state.get("status")
        exit_code = sig = None
        if status is not None:
            if os.WIFSIGNALED(status):
                sig = os.WTERMSIG(status)
            elif os.WIFEXITED(status):
                exit_code = os.WEXITSTATUS(status)
        return {
            "clean": killed,
            "kind": state["kind"],
            "cpu_s": max(0.0, state["cpu"] - state["snapshot"]),
            "total_cpu_s": state["cpu"],
            "peak_memory_mb": state["maxrss_kb"] / 1024.0,
            "exit_code": exit_code,
            "signal": sig,
        }

    def _mark_pass(self, message):
        """End the current pass but not its program process, which goes on with the next pass
        (`kind`) in place of a fresh one, when the zygote can still account for it: the process is
        one thread that never had a child (a child's CPU time is known only once it is reaped) and
        has used at most half its memory limit (the next pass has the rest). Its CPU time so
        far, read through its process CPU clock, is the pass's, and the next pass counts from there,
        with the program's files made afresh unless the pass left them as they were made (see
        _fresh_files; the process, single-threaded and waiting for its next request, cannot race
        that). Otherwise nothing changes (`continued` false) and the caller
        ends the pass as usual."""
        state = self.pass_state
        if state is None or state["pid"] is None:
            return {"continued": False}
        self._reap()
        pid = state["pid"]
        if state["status"] is not None or state["cpu"] or not _alone(pid):
            return {"continued": False}
        now = osutil.process_cpu_seconds(pid)
        memory = _memory_kb(pid)
        own = _memory_kb(os.getpid())
        limit_kb = float(message.get("memory_mb") or 0) * 1024
        if now is None or memory is None or own is None or memory[0] - own[0] > limit_kb / 2:
            return {"continued": False}
        clean = self._fresh_files(message, keep_unchanged=True)
        self.dirty = True
        self.pass_state = _pass_state(message.get("kind", ""), pid, now)
        return {
            "continued": True,
            "next": message.get("kind", ""),
            "clean": clean,
            "kind": state["kind"],
            "cpu_s": max(0.0, now - state["snapshot"]),
            "total_cpu_s": now,
            "peak_memory_mb": memory[1] / 1024.0,
            "exit_code": None,
            "signal": None,
        }

    def _spawn(self, message, fds):
        previous = self._end_pass()
        probe = self._coverage_probe(message) if message.get("coverage") or message.get("standby") else None
        if not message.get("fresh", True):
            self.scratch_made = None
        elif not self._fresh_files(message):
            previous["clean"] = False
        self.dirty = True
        code_fd = fds[-1] if message.get("code") else None
        passed = fds[:-1] if code_fd is not None else fds
        rpc = passed[:2]
        stdio = passed[2:4] if len(passed) > 2 else None
        self.program_environment(message["scratch"])
        template = self._module_template(message) if not message.get("main") else None
        notify_r, notify_w = os.pipe()
        go_r, go_w = os.pipe()
        plan = self._program_plan(message, rpc, stdio, notify_w, go_r, code_fd)
        state = self.pass_state = _pass_state(message.get("kind", ""))
        pid = os.fork()
        if pid == 0:
            try:
                os.close(notify_r)
                os.close(go_w)
                become_program(self, message, plan, probe, template)
            finally:
                os._exit(70)
        state["pid"] = pid
        os.close(notify_w)
        os.close(go_r)
        try:
            ready, _, _ = select.select([notify_r], [], [], SETUP_TIMEOUT_S)
            started = bool(ready) and os.read(notify_r, 1) == b"R"
            if started:
                snapshot = osutil.process_cpu_seconds(pid)
                state["snapshot"] = snapshot or 0.0
                os.write(go_w, b"G")
        finally:
            os.close(notify_r)
            os.close(go_w)
        if not started:
            return {
                "op": "spawned",
                "pid": None,
                "error": "the program process did not start",
                "previous": previous,
            }
        return {"op": "spawned", "pid": pid, "previous": previous}

    def _program_plan(self, message, rpc, stdio, notify_w, go_r, code_fd):
        """What a program process sets up on itself, worked out here before the fork, where it costs
        next to nothing (in the child each page the work touches is a copy-on-write fault): the
        descriptors it places at 0, 1, 2..., its resource limits, its argv and its import path."""
        limits, scratch, devnull = message["limits"], message["scratch"], self.devnull
        if message.get("main"):  # a case process: its socket to the harness at 3, no standard streams
            wanted = (devnull, devnull, devnull, rpc[0], devnull, notify_w, go_r)
        else:
            wanted = (
                devnull,
                stdio[0] if stdio else devnull,
                stdio[1] if stdio else devnull,
                *rpc,
                notify_w,
                go_r,
                code_fd if code_fd is not None else devnull,  # 7: the compiled candidate, when sent
            )
        # a fork copies the address space: the child's size as it starts is ours now
        size = int(osutil.read_proc_file("/proc/self/statm").split()[0]) * resource.getpagesize()
        cpu = int(float(limits["timeout_s"])) + 1
        rlimits = []
        for which, value in (
            (resource.RLIMIT_AS, size + int(limits["memory_mb"]) * 1024 * 1024),
            (resource.RLIMIT_CPU, (cpu, cpu + 1)),
            (resource.RLIMIT_NPROC, int(limits["max_processes"])),
            (resource.RLIMIT_FSIZE, int(limits["max_file_bytes"])),
            (resource.RLIMIT_NOFILE, int(limits["max_open_files"])),
            (resource.RLIMIT_CORE, 0),
        ):
            rlimits.append((which, value if isinstance(value, tuple) else (value, value)))
        argv = [os.path.join(scratch, message["solution_path"])]
        return wanted, rlimits, argv, [scratch, *self.program_path]

    def _fresh_files(self, message, keep_unchanged=False):
        """Empty what program processes left (see _wipe) and copy the program's files into scratch
        again; whether the wipe was complete. With `keep_unchanged` (a mark), scratch stays as it is
        when the pass left it exactly as it was made: the same entries, each with the same inode,
        type and mode, owner, links, size, and modification and change times (the change time,
        which no program can set, moves with every write, chmod, chown, link or attribute change).
        What lies outside scratch goes either way."""
        scratch = message["scratch"]
        made = self.scratch_made
        keep = keep_unchanged and made is not None and _tree_state(scratch) == made
        clean = self._wipe(scratch, keep_scratch=keep)
        if keep:
            return clean
        with osutil.acting_as(self.program_uid):
            osutil.copy_tree(message["template"], scratch)
        if message.get("standby"):  # this pass's process may go on with a coverage pass (a mark)
            self.scratch_made = _tree_state(scratch)
        return clean

    def program_environment(self, scratch):
        """Make the zygote's own environment the one a program starts with (it needs none of its
        own): set here once, inherited by every fork, instead of rebuilt in each program process,
        where every touched page of the inherited heap is a copy-on-write fault."""
        if self.environment_home == scratch:
            return
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
        self.environment_home = scratch

    def _module_template(self, message):
        """The candidate's module objects, made here once per (module, scratch): one for the pass
        and one for a coverage pass in the same process (program.module_template)."""
        import program

        key = (message["module"], message["scratch"])
        if key not in self.module_templates:
            if len(self.module_templates) >= 16:  # a worker's scratch never changes: this stays small
                self.module_templates.clear()
            self.module_templates[key] = (program.module_template(*key), program.module_template(*key))
            gc.freeze()  # never collected here; a collection in a program process need not visit it
        return self.module_templates[key]

    def _coverage_probe(self, message):
        """A warmed coverage tracer per solution path, made here once (its start-up costs tens of ms)."""
        import coverage_probe

        scratch, path = message["scratch"], message["solution_path"]
        key = (scratch, path)
        if key not in self.coverage_probes:
            try:
                tracer = coverage_probe.Tracer(scratch, path)
            except ImportError:
                tracer = None
            if tracer is not None:
                # no program process is alive now, and the scratch directory is wiped right after
                with osutil.acting_as(self.program_uid):
                    osutil.empty_directory(scratch)
                    tracer.warm_import(scratch, path)
                    tracer.warm_serving()
                self.dirty = True
            self.coverage_probes[key] = tracer
            skip_threading_fork_reset()  # the tracer loads threading
            gc.freeze()  # the tracer's objects too: a collection in a program process would touch them
        return self.coverage_probes[key]


def _pass_state(kind, pid=None, snapshot=0.0):
    """A pass's account: its main process, that process's exit status, the CPU time and peak memory
    of the processes reaped into it, and the main process's CPU time when the pass began."""
    return {"kind": kind, "pid": pid, "status": None, "cpu": 0.0, "maxrss_kb": 0, "snapshot": snapshot}


def _tree_state(path):
    """What _fresh_files compares: each entry under `path` (and `path`), in order, with what a change
    to it moves; None when it cannot be read whole."""
    state = []
    pending = [path]
    try:
        while pending:
            current = pending.pop()
            info = os.lstat(current)
            state.append(
                (
                    current,
                    info.st_ino,
                    info.st_mode,
                    info.st_uid,
                    info.st_gid,
                    info.st_nlink,
                    info.st_size,
                    info.st_mtime_ns,
                    info.st_ctime_ns,
                )
            )
            if len(state) > 4096:
                return None
            if stat.S_ISDIR(info.st_mode):
                names = sorted(os.listdir(current), reverse=True)
                pending.extend(os.path.join(current, name) for name in names)
    except OSError:
        return None
    return state


def _alone(pid):
    """Whether no process or thread was made in this PID namespace (the worker's own) since program
    process `pid`: the last pid the namespace handed out is still its own (the kernel never hands
    out a pid in use, and only CAP_SYS_ADMIN may set that number). So the program never had a
    child (whose CPU time would be known only once reaped, and a vfork child's page faults can be
    none) and runs as one thread (idle between requests, it cannot race the pass's wipe)."""
    try:
        return int(osutil.read_proc_file("/proc/sys/kernel/ns_last_pid")) == pid
    except (OSError, ValueError):
        return False


def _memory_kb(pid):
    """(VmSize, VmHWM) of process `pid` in kB: its address space now and its peak resident memory."""
    found = {}
    try:  # a bare descriptor, no file object: each object touched here costs a copy-on-write fault
        for line in osutil.read_proc_file(f"/proc/{pid}/status").split("\n"):
            name, _, value = line.partition(":")
            if name in ("VmSize", "VmHWM"):
                found[name] = int(value.split()[0])
    except (OSError, ValueError, IndexError):
        return None
    if len(found) != 2:
        return None
    return found["VmSize"], found["VmHWM"]


def install_filters(zygote, filters):
    """The seccomp filters (FILTERS: the program's and the SIGCHLD one, encoded by the worker; None
    on an architecture without them), on the zygote itself, once: every program process inherits
    them (the zygote needs none of what they refuse). Before the second one freezes SIGCHLD's action,
    it becomes CPython's own C handler with SA_RESTART (as under SIG_DFL, no blocking call, in C
    code too, is cut by a child's exit): the zygote's wakeup pipe needs that handler, and a program
    process, whose CPython table says SIG_DFL, keeps it (see become_program). Installing the second
    filter here instead of in each program process spares each its ctypes call (~50 copy-on-write
    faults)."""
    if filters is None:
        return
    program_filter, sigchld_filter = filters
    osutil.install_seccomp_filter(program_filter)  # no_new_privs first
    zygote.no_new_privs = True
    signal.signal(signal.SIGCHLD, _child_exited)
    signal.siginterrupt(signal.SIGCHLD, False)
    osutil.install_seccomp_filter(sigchld_filter)
    zygote.sigchld_frozen = True


def become_program(zygote, message, plan, probe, template=None):
    """In the forked child: isolate, drop privileges, wait for the go-ahead, then serve the program
    (PLAN: what Zygote._program_plan worked out for it before the fork)."""
    restore_threading_fork_reset()
    wanted, rlimits, argv, path = plan
    osutil.set_process_name("cg-program")
    os.setsid()
    main = bool(message.get("main"))
    # out of the way first, so that placing one descriptor never overwrites another still to place
    high = []
    for fd in wanted:  # a loop, not a comprehension: 3.11 makes each a function object and frame
        high.append(fcntl.fcntl(fd, fcntl.F_DUPFD, 100))
    for target, fd in enumerate(high):
        os.dup2(fd, target)
    osutil.close_fds_except(set(range(len(wanted))))
    # the other dispositions a program starts with were set on the zygote itself (set_program_defaults)
    signal.set_wakeup_fd(-1)
    # CPython's table says SIG_DFL, as in any fresh interpreter. Under the zygote's second filter
    # (install_filters) the kernel keeps CPython's C handler, with SA_RESTART: a handler the program
    # sets only changes CPython's table and runs; SIG_IGN or SA_NOCLDWAIT, which would have the
    # kernel reap the program's children unmeasured, never reach the kernel. CPython reports each
    # caught SIGCHLD then as a race, a report dropped here. (_signal's own function: signal.signal's
    # enum conversions touch ~30 pages of the inherited heap, each a copy-on-write fault.)
    _signal.signal(_signal.SIGCHLD, _signal.SIG_DFL)
    if zygote.sigchld_frozen:
        sys.unraisablehook = _quiet_sigchld_race
    osutil.set_oom_score_adj(1000)  # under memory pressure the kernel kills the program first
    for which, value in rlimits:
        resource.setrlimit(which, value)
    # the environment is the zygote's own, set for programs before the fork (program_environment)
    os.chdir(path[0])
    if not zygote.no_new_privs:
        osutil.prctl(osutil.PR_SET_NO_NEW_PRIVS, 1)
    if zygote.program_uid is not None:
        osutil.become(zygote.program_uid)
    elif os.getuid() == 0:
        osutil.capset(())  # root of a user namespace: it could otherwise undo the mounts
    # the seccomp filter is already in place: the zygote installed it on itself, and filters are
    # inherited by every process forked afterwards
    # sys.stdout and sys.stderr are the zygote's own objects (line-buffered there), now on our pipes
    sys.argv = argv
    sys.path[:] = path
    os.write(5, b"R")
    if os.read(6, 1) != b"G":
        os._exit(71)
    os.close(5)
    os.close(6)
    if main:
        mainrun.serve_cases(3, argv[0])
    import program
    import wire

    server = program.ProgramServer(
        wire.Channel(3, 4),
        message["module"],
        path[0],
        code_fd=7 if message.get("code") else None,
        module_template=template[0] if template else None,
        standby_template=template[1] if template else None,
    )
    if message.get("standby"):
        server.standby, probe = probe, None
    if server.start(probe):
        server.serve()
    os._exit(0)


def _child_exited(signum, frame):
    """The zygote's SIGCHLD handler: CPython's C handler catches the signal and writes to the
    wakeup pipe, which is what the zygote waits on."""


_SIGCHLD_RACE = f"Signal {int(signal.SIGCHLD)} ignored due to race condition"


def _quiet_sigchld_race(unraisable):
    """CPython reports a caught signal whose table entry is SIG_DFL or SIG_IGN as a race on stderr:
    in a program process, where SIGCHLD is caught but the table says SIG_DFL (or what the program set,
    see become_program), that would be every child's exit. Only that report is dropped."""
    exc = unraisable.exc_value
    if type(exc) is OSError and exc.args == (_SIGCHLD_RACE,):
        return
    sys.__unraisablehook__(unraisable)


_threading_reset = None  # (threading's at-fork hook, its code) while the zygote skips it


def _no_reset():
    pass


def skip_threading_fork_reset():
    """threading's at-fork hook rebuilds the module's bookkeeping in every forked child: ~140
    copy-on-write faults, a quarter of a program process's start, wherever threading is loaded
    (the coverage tracer loads it). For a child of this single-threaded zygote, which holds none of
    threading's locks while it forks, the rebuilt state equals the inherited one but for the main
    thread's native id, which restore_threading_fork_reset sets; that function also puts the hook
    back in each child, so that forks made by a program reset as usual."""
    global _threading_reset
    threading = sys.modules.get("threading")
    hook = getattr(threading, "_after_fork", None)
    code = getattr(hook, "__code__", None)
    if _threading_reset is not None or code is None or code.co_argcount or code.co_freevars:
        return
    if threading.active_count() != 1 or threading.current_thread() is not threading.main_thread():
        return
    _threading_reset = (hook, code)
    hook.__code__ = _no_reset.__code__


def restore_threading_fork_reset():
    """In a program process, first thing: threading's own at-fork hook again, and the one field of
    its state that differs in this process (see skip_threading_fork_reset)."""
    if _threading_reset is None:
        return
    hook, code = _threading_reset
    hook.__code__ = code
    set_native_id = getattr(sys.modules["threading"].main_thread(), "_set_native_id", None)
    if set_native_id is not None:
        set_native_id()


def set_program_defaults():
    """The dispositions and stream buffering a program process starts with, set once on the zygote
    (which needs none of these signals) and inherited by every fork; only SIGCHLD and the wakeup
    descriptor, which the zygote uses, are reset in the child."""
    for signum in (signal.SIGINT, signal.SIGTERM, signal.SIGQUIT):
        signal.signal(signum, signal.SIG_DFL)
    signal.signal(signal.SIGPIPE, signal.SIG_IGN)
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # oversized writes fail with EFBIG instead of killing
    for stream in (sys.stdout, sys.stderr):
        stream.reconfigure(line_buffering=True)


def prefork():
    """Fork the zygote first thing (boot.py, before the worker has loaded its own modules): its heap
    then holds only what it loads itself, and that is what each program process's fork copies and
    its exit tears down (the worker's modules, json and the socket module among them, are not). It
    waits, doing nothing, for `launch`; returns (pid, the worker's end of its channel)."""
    ours, theirs = _socket.socketpair(_socket.AF_UNIX, _socket.SOCK_STREAM)
    parent = os.getpid()
    pid = os.fork()
    if pid == 0:
        ours.close()
        _run(theirs, parent)  # never returns
    theirs.close()
    return pid, ours


def launch(forked, config, preload, filters):
    """Send the zygote PREFORK made its configuration, once the worker has set up the sandbox (its
    checks, mounts and capabilities): the zygote takes the worker's CPU, capabilities and import path
    (CONFIG's `cpu`, `capabilities`, `path`, `cwd`), loads PRELOAD and installs FILTERS (from
    seccomp.encoded_filters, or None), then serves. Returns FORKED."""
    _pid, channel = forked
    message = {"config": config, "preload": list(preload), "filters": filters}
    osutil.send_message(channel, message, encode=marshal.dumps)
    return forked


def _run(channel, parent):
    code = 1
    try:
        osutil.prctl(osutil.PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:  # the worker was gone before the line above
            os._exit(code)
        osutil.set_process_name("cg-zygote")
        osutil.prctl(osutil.PR_SET_CHILD_SUBREAPER, 1)
        os.setsid()
        osutil.close_fds_except({channel.fileno(), 2})
        devnull = os.open(os.devnull, os.O_RDWR)
        os.dup2(devnull, 0)
        os.dup2(devnull, 1)
        message, _fds = osutil.receive_message(channel, max_fds=0, decode=marshal.loads)
        if message is None:  # the worker did not start
            os._exit(0)
        config = message["config"]
        _take_worker_setup(config)
        for name in message["preload"]:
            try:
                if name == "coverage":  # a pool that measures coverage: only its tracer is needed here
                    import coverage_probe

                    coverage_probe.preload()
                else:
                    __import__(name)
            except Exception:
                pass

        import program  # imported here, so program processes never pay for it

        program.learn_types(message["preload"])
        program.rehearse()
        zygote = Zygote(config, channel, devnull)
        install_filters(zygote, message["filters"])
        set_program_defaults()
        skip_threading_fork_reset()
        # objects that exist now are never collected: a collection in a program process would
        # otherwise write to every inherited page (copy-on-write faults are costly)
        gc.freeze()
        code = zygote.serve()
    except BaseException as exc:
        sys.stderr.write(f"zygote failed: {type(exc).__name__}: {exc}\n")
    finally:
        os._exit(code)


def _take_worker_setup(config):
    """What the worker set up on itself after the fork, done here the same way: its directory in
    the sandbox's (pivoted) root, its import path, its CPU, its capabilities, its malloc arenas."""
    os.chdir(config["cwd"])
    sys.path[:] = config["path"]
    if config.get("cpu") is not None:
        os.sched_setaffinity(0, {config["cpu"]})
    if config.get("capabilities") is not None:
        osutil.capset(set(config["capabilities"]))
    osutil.mallopt(osutil.M_ARENA_MAX, 2)


if __name__ == "__main__":  # for manual debugging only
    print("the zygote runs through boot.py (or worker.py)")
