"""The case process of stdin/stdout tasks: runs the program's file as `__main__` once per case.

Started by the zygote as a program process (its own uid, rlimits, seccomp, no privileges). The harness
sends it, per case, three fresh pipes (stdin, stdout, stderr); it puts them on descriptors 0, 1 and 2
and runs the program's file afresh in a new `__main__` module, as `python3 solution.py` would: fresh
standard streams (UTF-8, stdout block-buffered), `exit()`/`sys.exit` codes, a traceback and exit code
1 on an uncaught exception, non-daemon threads joined and `atexit` functions run before the end,
streams flushed. Then it releases the pipes (the harness sees end of file), answers with the exit code,
and waits for the next case.

Cases of one run share this process, as APPS's and LiveCodeBench's harnesses share one for all of a
program's inputs: the module namespace, builtins, working directory, environment, argv, signal
alarms and standard streams are fresh for every case, while what the interpreter keeps (imported
modules, the recursion limit) carries over. A case that ends the process (`os._exit`, a crash, a
kill), leaves a thread or a child process running, or runs out of memory is the last one it runs: the
harness starts a fresh process for the next. Nothing here decides a verdict: the harness compares what
it read from the pipes, and an exit code can only turn a correct answer into a runtime error.
"""

import _socket
import atexit
import builtins
import gc
import io
import os
import signal
import struct
import sys
import time
import types

REPLY = struct.Struct("<ii")  # exit code, whether the next case may run in this process (1) or not (0)


class _Exit:
    """`exit()` and `quit()` as the site module defines them (the sandbox's Python runs without site)."""

    def __init__(self, name):
        self.name = name

    def __repr__(self):
        return f"Use {self.name}() or Ctrl-D (i.e. EOF) to exit"

    def __call__(self, code=None):
        raise SystemExit(code)


def _exit_code(exc):
    code = exc.code
    if code is None:
        return 0
    if isinstance(code, int):
        return code & 0xFF
    try:
        sys.stderr.write(f"{code}\n")
    except BaseException:
        pass
    return 1


def _standard_streams():
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False
    )
    return sys.stdin, sys.stdout, sys.stderr


def _layers(streams):
    """The case's own file objects: each standard stream with its buffer and raw file beneath."""
    found = []
    for stream in streams:
        found.append(stream)
        buffer = getattr(stream, "buffer", None)
        if buffer is not None:
            found.append(buffer)
            raw = getattr(buffer, "raw", None)
            if raw is not None:
                found.append(raw)
    return found


def _is_program_stream(value, ours):
    """A file object the program opened, or a method bound to one (`open(0).readline`), found
    without running any of the program's code: its types only (an `AttrDict` whose `__getattr__`
    raises KeyError is ordinary). The case's own streams, and their methods (`input =
    sys.stdin.readline`, `write = sys.stdout.buffer.write`: the usual fast-I/O aliases), are not."""
    target = value
    if type(value) in (types.BuiltinMethodType, types.MethodType):
        target = value.__self__
    if not issubclass(type(target), io.IOBase):
        return False
    return all(target is not stream for stream in ours)


def _release_program_streams(module, ours):
    """End the file objects the program made on the case's descriptors (`sys.stdin = open(0)`,
    `input = open(0).readline`, an `open(1, "w")` never flushed) as the interpreter's shutdown
    would — flushed, closed — while 0-2 are still this case's pipes: left alive, one would flush
    into, or close, the next case's. A quick look first (the standard streams, the module's names);
    only then the collector. True when none is left (else the next case gets a fresh process)."""
    current = (sys.stdin, sys.stdout, sys.stderr)
    layers = _layers(ours)
    if all(a is b for a, b in zip(current, ours, strict=True)) and not any(
        _is_program_stream(value, layers) for value in list(module.__dict__.values())
    ):
        return True
    sys.stdin, sys.stdout, sys.stderr = ours
    module.__dict__.clear()
    gc.collect()
    none_left = True
    for obj in gc.get_objects():
        if issubclass(type(obj), io.IOBase) and all(obj is not stream for stream in layers):
            try:
                if obj.closed or obj.fileno() not in (0, 1, 2):
                    continue
                obj.flush()
            except BaseException:
                pass
            none_left = False
    return none_left


def run_once(path, code_object):
    """Run the compiled program as `__main__` on the current descriptors 0-2; its exit code, and
    whether this process is still fit to run another case."""
    ours = _standard_streams()
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = builtins
    sys.modules["__main__"] = module
    code, fit = 0, True
    try:
        if isinstance(code_object, BaseException):
            raise code_object
        exec(code_object, module.__dict__)
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException as exc:
        code = 1
        fit = not isinstance(exc, (MemoryError, RecursionError, KeyboardInterrupt))
        try:  # the program's frames only (not this runner's)
            tb = exc.__traceback__.tb_next if exc.__traceback__ is not None else None
            exc.__traceback__ = tb
            # the interpreter's own printer (in C, the same text as the traceback module's): that
            # module and its imports would otherwise sit in the zygote's heap, paid by every fork
            sys.__excepthook__(type(exc), exc, tb)
        except BaseException:
            pass
    # threading is not imported here: the zygote loads this module, and threading's at-fork hook
    # would then run (~125 copy-on-write faults) in every program process. Only a program that
    # imported it can have threads to wait for, as the interpreter would at exit.
    threading = sys.modules.get("threading")
    if threading is not None:
        try:
            main = threading.main_thread()
            for thread in threading.enumerate():
                if thread is not main and not thread.daemon:
                    thread.join()
        except BaseException:
            fit = False
    try:
        atexit._run_exitfuncs()
        atexit._clear()
    except BaseException:
        fit = False
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 1  # e.g. stdout closed by the program, or a write that cannot complete
    if not _release_program_streams(module, ours):
        fit = False
    if _threads_left() or _has_children():
        fit = False  # something of this case still runs: it must not reach the next case's pipes
    return code, fit


def _threads_left(settle_s=0.02):
    """Whether a thread besides this one is left, however it was started (threading or _thread).
    A joined thread's OS thread may still be exiting (`join` returns when its Python state is
    released): it is given `settle_s` to go, or the idiom `Thread(target=main).start()` would cost a
    fresh process for most cases (falseflag round 14, Q3)."""
    deadline = time.monotonic() + settle_s
    while _thread_count() > 1:
        if time.monotonic() >= deadline:
            return True
        time.sleep(0.0005)
    return False


def _thread_count():
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        return 2  # unknown: assume one is left


def _has_children():
    try:
        while True:
            pid, _status = os.waitpid(-1, os.WNOHANG)
            if pid == 0:
                return True
    except ChildProcessError:
        return False


def serve_cases(sock_fd, path):
    """Run cases until the harness closes the socket (or a case makes this process unfit). Never
    returns."""
    import osutil  # the zygote's (this folder is off a program's import path; sys.modules has it)

    server = _socket.socket(fileno=sock_fd)  # the C socket: socket.py is not loaded here
    for name in ("exit", "quit"):
        if not hasattr(builtins, name):
            setattr(builtins, name, _Exit(name))
    try:
        with open(path, "rb") as handle:
            code_object = compile(handle.read(), path, "exec")
    except BaseException as exc:  # reported by every case, as python3 would report it
        code_object = exc
    pristine_builtins = dict(builtins.__dict__)
    pristine_environ = dict(os.environ)
    cwd, argv, path_list = os.getcwd(), list(sys.argv), list(sys.path)
    devnull = os.open(os.devnull, os.O_RDWR)
    while True:
        try:
            message, fds = osutil.recv_fds(server, 16, 3)
        except OSError:
            os._exit(0)
        if not message or len(fds) != 3:
            os._exit(0)
        for target, fd in enumerate(fds):
            os.dup2(fd, target)
            os.close(fd)
        code, fit = run_once(path, code_object)
        for target in (0, 1, 2):  # release the case's pipes: the harness reads end of file
            os.dup2(devnull, target)
        builtins.__dict__.clear()
        builtins.__dict__.update(pristine_builtins)
        os.environ.clear()
        os.environ.update(pristine_environ)
        sys.argv[:], sys.path[:] = argv, path_list
        try:
            os.chdir(cwd)
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, signal.SIG_DFL)
        except (OSError, ValueError):
            fit = False
        try:
            server.sendall(REPLY.pack(code, 1 if fit else 0))
        except OSError:
            os._exit(0)
        if not fit:
            os._exit(code)
