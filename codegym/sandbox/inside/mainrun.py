"""Run the program's file as `__main__` in a program process (stdin/stdout tasks).

Called in the forked program process after it isolated itself and dropped its privileges; stdin,
stdout and stderr are the harness's pipes. Behaves as `python3 solution.py` does: fresh standard
streams (UTF-8, stdout block-buffered), `sys.exit` codes, a traceback and exit code 1 on an uncaught
exception, non-daemon threads joined before the end (the `threading.Thread(target=main)` idiom of
deep recursions), streams flushed. Never returns.
"""

import gc
import os
import signal
import socket
import struct
import sys
import threading
import traceback
import types


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


def run_as_main(path):
    sys.stdin = sys.__stdin__ = open(0, encoding="utf-8", errors="surrogateescape", closefd=False)  # noqa: SIM115
    sys.stdout = sys.__stdout__ = open(1, "w", encoding="utf-8", closefd=False)  # noqa: SIM115
    sys.stderr = sys.__stderr__ = open(  # noqa: SIM115
        2, "w", encoding="utf-8", errors="backslashreplace", buffering=1, closefd=False
    )
    module = types.ModuleType("__main__")
    module.__file__ = path
    module.__builtins__ = __builtins__
    sys.modules["__main__"] = module
    code = 0
    try:
        with open(path, "rb") as handle:
            source = handle.read()
        exec(compile(source, path, "exec"), module.__dict__)
    except SystemExit as exc:
        code = _exit_code(exc)
    except BaseException as exc:
        code = 1
        try:  # the program's frames only (not this runner's)
            traceback.print_exception(type(exc), exc, exc.__traceback__.tb_next)
        except BaseException:
            pass
    try:
        threading._shutdown()  # what the interpreter does at exit: wait for non-daemon threads
    except BaseException:
        pass
    for stream in (sys.stdout, sys.stderr):
        try:
            stream.flush()
        except BaseException:
            code = code or 1  # e.g. stdout closed by the program, or a write that cannot complete
    os._exit(code)


REPLY = struct.Struct("<iqdd")  # wait status, peak RSS (KiB), user and system CPU seconds


def serve_cases(sock_fd, path, own_uid):
    """The case server: for each message from the harness (the case's stdin, stdout and stderr
    pipes), fork a child that runs the program as `__main__` on them, wait for it, end whatever it
    left running, and answer with how it ended. The server itself never runs program code; each
    case starts from it, so no case sees another's memory. Never returns.

    `own_uid`: the program runs under a uid of its own, so kill(-1) reaches only what the case left
    running. Without one (or as root) it would reach the harness and the worker, so leftovers then
    wait for the end of the pass, when the zygote kills them."""
    sweep = own_uid and os.getuid() != 0
    gc.freeze()  # what the server holds stays out of each case's collections: fewer copied pages
    server = socket.socket(fileno=sock_fd)
    while True:
        try:
            message, fds, _flags, _address = socket.recv_fds(server, 16, 3)
        except OSError:
            os._exit(0)
        if not message or len(fds) != 3:
            os._exit(0)
        pid = os.fork()
        if pid == 0:
            server.close()
            for target, fd in enumerate(fds):
                os.dup2(fd, target)
            for fd in fds:
                os.close(fd)
            run_as_main(path)
        for fd in fds:
            os.close(fd)
        _pid, status, usage = os.wait4(pid, 0)
        if sweep:
            try:
                os.kill(-1, signal.SIGKILL)  # what the case left running (kill(-1) spares the caller)
            except OSError:
                pass
        try:
            server.sendall(REPLY.pack(status, usage.ru_maxrss, usage.ru_utime, usage.ru_stime))
        except OSError:
            os._exit(0)
