"""One warm worker in its own container, spoken to over the container's attach socket.

The worker is the container's main process (PID 1): its stdin/stdout carry the pool's frames, so
the transport attaches *before* starting the container (no frame can be missed or left in an HTTP
buffer) and demultiplexes Docker's stream framing (8-byte headers: stream, size) itself.

When the stream ends, the container's state tells whose doing it was: an OOM kill is the program's
(`WorkerDied`, blamed after a retry); a SIGKILL without OOM can only come from outside, because
the kernel keeps SIGKILL away from a PID namespace's init when sent from inside it; an engine that
does not answer, or a container removed under us, is infrastructure too (`WorkerLost`, retried).
"""

from __future__ import annotations

import contextlib
import math
import select
import socket
import time
from collections import deque
from collections.abc import Callable
from typing import Any

import requests
from docker.errors import APIError, DockerException, NotFound

from codegym.sandbox.docker.engine import UNREACHABLE, Engine
from codegym.sandbox.transport import WorkerDied, WorkerLost, WorkerStartError, WorkerUnresponsive

STDOUT, STDERR = 1, 2
HEADER_SIZE = 8
READ_CHUNK = 256 * 1024
SIGKILL_EXIT = 128 + 9


class ContainerTransport:
    """Creates, attaches to and starts one container; then reads and writes its worker's stdio."""

    def __init__(
        self,
        engine: Engine,
        slot: int,
        create: Callable[[int], dict[str, Any]],
        *,
        engine_wait_s: float,
    ) -> None:
        self.engine = engine
        self.slot = slot
        self.create = create
        self.engine_wait_s = engine_wait_s
        self.container_id = ""
        self._io: Any = None  # docker-py's SocketIO: holds the HTTP response (and so the socket) alive
        self._sock: socket.socket | None = None
        self._raw = bytearray()
        self._stdout = bytearray()
        self._eof = False
        self.host_pid = -1
        self.stderr_tail: deque[bytes] = deque(maxlen=64)

    # -- lifecycle ----------------------------------------------------------------------------
    def launch(self) -> None:
        """Create, attach, start; while the engine is down or restarting, keep trying until
        `engine_wait_s` has passed (a restart takes seconds; failing at once would burn retries)."""
        deadline = time.monotonic() + self.engine_wait_s
        while True:
            try:  # no ping first: an engine that is up (the usual case) answers the create itself
                self._create_and_start()
                return
            except (DockerException, *UNREACHABLE) as exc:
                self.kill()
                self.container_id, self._sock, self._io, self._eof = "", None, None, False
                if not _engine_trouble(exc) or time.monotonic() >= deadline:
                    raise WorkerStartError(
                        f"container for worker {self.slot} could not start: {exc}"
                    ) from exc
                time.sleep(0.5)
            if not self.engine.wait_until_up(max(0.0, deadline - time.monotonic())):
                raise WorkerStartError(f"the docker engine did not answer within {self.engine_wait_s:.0f}s")

    def _create_and_start(self) -> None:
        api = self.engine.api
        self.container_id = api.create_container(**self.create(self.slot))["Id"]
        self._io = api.attach_socket(
            self.container_id, params={"stdin": 1, "stdout": 1, "stderr": 1, "stream": 1}
        )
        self._sock = getattr(self._io, "_sock", self._io)
        api.start(self.container_id)
        self.host_pid = -1  # asked for when wanted (`pid`): one round trip less per container start

    @property
    def alive(self) -> bool:
        if self._sock is None or self._eof:
            return False
        try:  # a closed stream shows as readable with nothing to read; never blocks
            if _readable(self._sock, 0) and self._sock.recv(1, socket.MSG_PEEK) == b"":
                self._eof = True
        except OSError:
            self._eof = True
        return not self._eof

    @property
    def pid(self) -> int:
        """The worker's pid on the host (-1 when its container is gone or the engine cannot say)."""
        if self.host_pid < 0 and self.container_id and not self._eof:
            with contextlib.suppress(DockerException, *UNREACHABLE):
                state = self.engine.api.inspect_container(self.container_id)["State"]
                self.host_pid = int(state.get("Pid") or -1)
        return self.host_pid

    def stderr_text(self) -> str:
        return b"".join(self.stderr_tail).decode("utf-8", "replace")[-2000:]

    def stop(self) -> None:
        """The worker was told to shut down: give it a moment to exit, then remove the container.
        (Removing a container whose worker has exited takes ~15 ms; removing a running one, which
        the engine must kill and reap first, ~150 ms or more.)"""
        deadline = time.monotonic() + 2.0
        with contextlib.suppress(WorkerDied, WorkerLost, WorkerUnresponsive, OSError):
            while not self._eof and time.monotonic() < deadline:
                self._fill(deadline, classify=False)
        self.kill()

    def kill(self) -> None:
        self._eof = True
        if self._sock is not None:
            with contextlib.suppress(OSError):
                self._sock.shutdown(socket.SHUT_RDWR)  # wakes a thread blocked reading it
            with contextlib.suppress(OSError):
                self._io.close()
            with contextlib.suppress(OSError):
                self._sock.close()
        if self.container_id:
            with contextlib.suppress(DockerException, *UNREACHABLE):
                # left behind only when the engine is gone; swept by label later
                self.engine.api.remove_container(self.container_id, force=True)

    # -- I/O ----------------------------------------------------------------------------------
    def send(self, data: bytes) -> None:
        if self._sock is None or self._eof:
            raise WorkerDied(f"worker {self.slot} is not running")
        try:
            self._sock.sendall(data)
        except OSError as exc:
            raise self._loss(f"could not write to worker {self.slot}: {exc}") from exc

    def recv_exact(self, size: int, deadline: float) -> bytes:
        while len(self._stdout) < size:
            self._fill(deadline)
        data = bytes(self._stdout[:size])
        del self._stdout[:size]
        return data

    def _fill(self, deadline: float, *, classify: bool = True) -> None:
        """Read what the socket has (waiting until `deadline`) and sort it into stdout/stderr."""
        assert self._sock is not None
        timeout = deadline - time.monotonic()
        if timeout <= 0:
            raise WorkerUnresponsive(f"worker {self.slot} gave no answer in time")
        if not _readable(self._sock, timeout):
            return
        try:
            chunk = self._sock.recv(READ_CHUNK)
        except OSError:
            chunk = b""
        if not chunk:
            self._eof = True
            raise self._loss("the stream ended") if classify else WorkerDied("the stream ended")
        self._raw += chunk
        while len(self._raw) >= HEADER_SIZE:
            size = int.from_bytes(self._raw[4:HEADER_SIZE], "big")
            if len(self._raw) < HEADER_SIZE + size:
                break
            stream = self._raw[0]
            payload = bytes(self._raw[HEADER_SIZE : HEADER_SIZE + size])
            del self._raw[: HEADER_SIZE + size]
            if stream == STDOUT:
                self._stdout += payload
            else:
                self.stderr_tail.append(payload)

    def _loss(self, what: str) -> Exception:
        """Why the worker's stream ended: the program's doing (WorkerDied) or not (WorkerLost)."""
        self._eof = True
        prefix = f"worker {self.slot} ({self.container_id[:12]}): {what}"
        try:
            self.engine.api.wait(self.container_id, timeout=5)
            state = self.engine.api.inspect_container(self.container_id)["State"]
        except NotFound:
            return WorkerLost(f"{prefix}; its container was removed from outside")
        except requests.exceptions.ReadTimeout:
            return WorkerLost(f"{prefix}, but its container still runs (the engine dropped the stream)")
        except (DockerException, *UNREACHABLE) as exc:
            return WorkerLost(f"{prefix}; the docker engine is unreachable ({type(exc).__name__})")
        code = state.get("ExitCode")
        if state.get("OOMKilled"):
            return WorkerDied(f"{prefix}; the container hit its memory limit")
        if code == SIGKILL_EXIT:
            return WorkerLost(f"{prefix}; the container was killed from outside")
        return WorkerDied(f"{prefix}; the worker exited with code {code}; stderr: {self.stderr_text()}")


def _readable(sock: socket.socket, timeout: float) -> bool:
    """poll, not select: a busy host process may hold descriptors above select's 1024 limit."""
    poller = select.poll()
    poller.register(sock, select.POLLIN | select.POLLHUP | select.POLLERR)
    return bool(poller.poll(max(0, math.ceil(timeout * 1000))))


def _engine_trouble(exc: BaseException) -> bool:
    """Errors that mean the engine is down, restarting or overloaded, not that our request is wrong."""
    if isinstance(exc, UNREACHABLE):
        return True
    if isinstance(exc, APIError):
        text = str(exc).lower()
        return exc.status_code in (502, 503, 504) or any(
            hint in text
            for hint in ("shutting down", "connection refused", "no such container", "is not running")
        )
    return False
