"""How the host reaches a warm worker: the `Transport` protocol, the errors that separate the
infrastructure's failures from the program's, and the subprocess transport (a worker spoken to over
its stdin/stdout pipes, launched from one long-lived thread).
"""

from __future__ import annotations

import contextlib
import os
import queue
import select
import subprocess
import threading
import time
from collections import deque
from collections.abc import Sequence
from concurrent.futures import Future
from typing import Protocol


class WorkerDied(RuntimeError):
    """The worker process went away mid-conversation."""


class WorkerUnresponsive(RuntimeError):
    """The worker did not answer in time; it is killed and replaced."""


class WorkerStartError(RuntimeError):
    """The worker could not be started (isolation unavailable, bad image, ...)."""


class WorkerLost(RuntimeError):
    """The infrastructure took the worker away (engine down, killed or removed from outside)."""


class Transport(Protocol):
    """A byte channel to one worker process and its lifecycle; raises the exceptions above."""

    def launch(self) -> None: ...
    def send(self, data: bytes) -> None: ...
    def recv_exact(self, size: int, deadline: float) -> bytes: ...
    @property
    def alive(self) -> bool: ...
    @property
    def pid(self) -> int: ...
    def stderr_text(self) -> str: ...
    def stop(self) -> None:
        """Wait briefly for a worker told to shut down to exit, then force it."""

    def kill(self) -> None: ...


class Launcher:
    """Spawns every worker from one long-lived thread.

    Sandboxes that die with their parent (bubblewrap's --die-with-parent, PR_SET_PDEATHSIG) watch
    the *thread* that forked them; spawning from short-lived executor threads would kill workers
    as soon as those threads finish.
    """

    def __init__(self) -> None:
        self._requests: queue.Queue[
            tuple[list[str], dict[str, str] | None, Future[subprocess.Popen[bytes]]] | None
        ]
        self._requests = queue.Queue()
        self._closed = False
        self._lock = threading.Lock()  # a request is queued before the end marker, or refused
        self._thread = threading.Thread(target=self._serve, daemon=True, name="codegym-worker-launcher")
        self._thread.start()

    def _serve(self) -> None:
        while (item := self._requests.get()) is not None:
            if self._closed:
                item[2].set_exception(OSError("the worker launcher is closed"))
                continue
            argv, env, future = item
            try:
                future.set_result(
                    subprocess.Popen(
                        argv,
                        stdin=subprocess.PIPE,
                        stdout=subprocess.PIPE,
                        stderr=subprocess.PIPE,
                        env=env,
                        close_fds=True,
                        start_new_session=True,
                    )
                )
            except BaseException as exc:
                future.set_exception(exc)

    def spawn(self, argv: list[str], env: dict[str, str] | None) -> subprocess.Popen[bytes]:
        future: Future[subprocess.Popen[bytes]] = Future()
        with self._lock:
            if self._closed:
                raise OSError("the worker launcher is closed")
            self._requests.put((argv, env, future))
        return future.result()

    def close(self) -> None:
        with self._lock:
            self._closed = True  # requests still queued fail instead of waiting for ever
            self._requests.put(None)


class PipeTransport:
    """A worker subprocess (spawned by the Launcher), spoken to over its stdin/stdout."""

    def __init__(self, slot: int, argv: Sequence[str], env: dict[str, str] | None, launcher: Launcher):
        self.slot = slot
        self.argv = list(argv)
        self.env = env
        self.launcher = launcher
        self.process: subprocess.Popen[bytes] | None = None
        self.stderr_tail: deque[bytes] = deque(maxlen=64)

    def launch(self) -> None:
        try:
            self.process = self.launcher.spawn(self.argv, self.env)
        except OSError as exc:
            raise WorkerStartError(f"worker {self.slot} could not be launched: {exc}") from exc
        threading.Thread(
            target=self._pump_stderr, daemon=True, name=f"codegym-worker-{self.slot}-stderr"
        ).start()

    def _pump_stderr(self) -> None:
        assert self.process is not None and self.process.stderr is not None
        for line in self.process.stderr:
            self.stderr_tail.append(line)

    def stderr_text(self) -> str:
        return b"".join(self.stderr_tail).decode("utf-8", "replace")[-2000:]

    @property
    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else -1

    def send(self, data: bytes) -> None:
        assert self.process is not None and self.process.stdin is not None
        try:
            self.process.stdin.write(data)
            self.process.stdin.flush()
        except (BrokenPipeError, OSError) as exc:
            raise WorkerDied(f"worker {self.slot} closed its input: {exc}") from exc

    def recv_exact(self, size: int, deadline: float) -> bytes:
        assert self.process is not None and self.process.stdout is not None
        fd = self.process.stdout.fileno()
        chunks: list[bytes] = []
        remaining = size
        while remaining:
            timeout = deadline - time.monotonic()
            if timeout <= 0:
                raise WorkerUnresponsive(f"worker {self.slot} gave no answer in time")
            # poll, not select: with hundreds of workers a descriptor number passes FD_SETSIZE (1024)
            poller = select.poll()
            poller.register(fd, select.POLLIN | select.POLLHUP | select.POLLERR)
            if not poller.poll(max(1, int(timeout * 1000))):
                continue
            chunk = os.read(fd, remaining)
            if not chunk:
                code = self.process.poll()
                raise WorkerDied(f"worker {self.slot} exited (code {code}); stderr: {self.stderr_text()}")
            chunks.append(chunk)
            remaining -= len(chunk)
        return b"".join(chunks)

    def stop(self) -> None:
        if self.process is None:
            return
        try:
            self.process.wait(timeout=2)
        except subprocess.TimeoutExpired:
            self.kill()
        self._close_pipes()

    def kill(self) -> None:
        if self.process is None:
            return
        with contextlib.suppress(ProcessLookupError):
            self.process.kill()
        with contextlib.suppress(subprocess.TimeoutExpired):
            self.process.wait(timeout=5)
        self._close_pipes()

    def _close_pipes(self) -> None:
        assert self.process is not None
        for stream in (self.process.stdin, self.process.stdout):
            if stream is not None:
                with contextlib.suppress(OSError):
                    stream.close()
