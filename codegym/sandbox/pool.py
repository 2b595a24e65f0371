"""Host-side handles to warm workers and the pool that dispatches executions to them.

Backend-neutral: a backend supplies how to reach one worker — an argv (spoken to over the
subprocess's pipes) or a `Transport` factory (e.g. a container's attach socket) — and the pool does
the rest: framing, deadlines, restarts and the retry policy that keeps infrastructure failures
apart from the program's:

* a worker that cannot start is ours: `sandbox_error`, retried on a fresh worker up to
  `max_retries` times;
* a worker the infrastructure took away (`WorkerLost`: its engine went down, it was killed or
  removed from outside) is ours too, counted the same way;
* a fault *during a run* — the worker dies or stops answering, or its harness dies (a `fault` in the
  result) — is retried once on a fresh worker; if it happens again with the same program, the
  program is blamed (`error`, flag `killed_worker`): a fault that follows the program is its doing,
  and a `sandbox_error` (reward None) would give a hacking program a neutral score instead of a
  failing one.

Each worker holds up to `PIPELINE_DEPTH` requests: the next one waits in its input while it runs the
current, so it never idles while the host handles a result and writes the next request (its runs
stay one at a time, in order). A queued request that the worker never started because the one ahead
of it brought the worker down, or because the host replaced the worker, is sent again to the fresh
worker and counts as nothing (neither a fault of its program nor an infrastructure failure).
"""

from __future__ import annotations

import contextlib
import json
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from concurrent.futures import ThreadPoolExecutor, wait
from dataclasses import dataclass
from pathlib import Path

from codegym.sandbox.inside import protocol
from codegym.sandbox.precompile import HostTestCompiler
from codegym.sandbox.transport import (
    Launcher,
    PipeTransport,
    Transport,
    WorkerDied,
    WorkerLost,
    WorkerStartError,
    WorkerUnresponsive,
)
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, Flag

__all__ = [
    "HOST_GRACE_S",
    "Transport",
    "WorkerDied",
    "WorkerHandle",
    "WorkerInfo",
    "WorkerLost",
    "WorkerPool",
    "WorkerStartError",
    "WorkerUnresponsive",
]

LaunchCommand = Callable[[int], Sequence[str]]
HOST_GRACE_S = 10.0
PIPELINE_DEPTH = 2  # requests a worker holds: the one it runs and the next (see the module docstring)
MAX_RESENDS = 8  # a request sent again this often without a worker starting it: an infrastructure failure


class NotStarted(RuntimeError):
    """The worker never started this request (see the module docstring): send it again, for free."""


@dataclass
class WorkerInfo:
    slot: int
    pid: int
    details: dict


class WorkerHandle:
    """One warm worker: the framing, hello and exec/result exchange over its transport."""

    def __init__(self, slot: int, transport: Transport, start_timeout_s: float):
        self.slot = slot
        self.transport = transport
        self.start_timeout_s = start_timeout_s
        self.info: dict = {}
        self.executions = 0
        self.prepared_keys: set[str] = set()  # test sets this worker holds compiled (it keeps them)
        # requests are numbered as written; a worker answers them in that order, one at a time
        self._order = threading.Condition()
        self._written = 0
        self._answered = 0
        self._broken = False  # a request went wrong or the host replaced the worker: none after it ran
        self.replacement: WorkerHandle | None = None  # set by WorkerPool._replace
        self.replacing = threading.Lock()

    def start(self) -> None:
        self.transport.launch()
        try:
            hello = self._read(time.monotonic() + self.start_timeout_s)
        except (WorkerDied, WorkerUnresponsive, WorkerLost) as exc:
            self.kill()
            raise WorkerStartError(
                f"worker {self.slot} did not start: {exc}; stderr: {self.stderr_text()}"
            ) from exc
        if not hello.get("ok"):
            self.kill()
            raise WorkerStartError(f"worker {self.slot} refused to start: {hello.get('error')}")
        self.info = hello.get("info", {})

    def stderr_text(self) -> str:
        return self.transport.stderr_text()

    @property
    def alive(self) -> bool:
        return self.transport.alive

    def execute(self, wire_request: dict, deadline_s: float, prepared: dict | None = None) -> dict:
        """Send a request and wait for its result; the worker may still be running the one before
        (its deadline counts from when that one is answered). Raises NotStarted when the worker
        never started it."""
        with self._order:
            if self._broken:
                raise NotStarted(f"worker {self.slot} is being replaced")
            if prepared is not None:
                key = prepared.get("key")
                if key in self.prepared_keys:
                    wire_request = {**wire_request, "prepared_key": key}  # the worker has them: name them
                else:
                    wire_request = {**wire_request, "prepared": prepared}
                    self.prepared_keys.add(key)
            number = self._written
            try:
                self._write({"op": "exec", "id": self.executions, "request": wire_request})
            except BaseException as exc:  # the worker cannot have read it
                self._broken = True
                self._order.notify_all()
                raise NotStarted(f"worker {self.slot} took no request: {exc}") from exc
            self._written += 1
            self.executions += 1
            self._order.wait_for(lambda: self._answered == number or self._broken)
            if self._broken:  # the worker went wrong on a request before this one
                raise NotStarted(f"worker {self.slot} went wrong before this request")
        try:
            reply = self._read(time.monotonic() + deadline_s)
        except BaseException as exc:
            with self._order:
                replaced, self._broken = self._broken, True
                self._order.notify_all()
            if replaced:  # the host replaced the worker while it ran this: not the program's doing
                raise NotStarted(f"worker {self.slot} was replaced during the run") from exc
            raise
        with self._order:
            self._answered += 1
            self._order.notify_all()
        if reply.get("op") != "result":
            raise WorkerDied(f"unexpected reply {reply.get('op')!r}")
        return reply["result"]

    def retire(self) -> None:
        """No request starts here any more; those waiting raise NotStarted (see WorkerPool._replace)."""
        with self._order:
            self._broken = True
            self._order.notify_all()

    def _write(self, message: dict) -> None:
        body = json.dumps(message, separators=(",", ":")).encode("utf-8")
        self.transport.send(protocol.HEADER.pack(len(body)) + body)

    def _read(self, deadline: float) -> dict:
        header = self.transport.recv_exact(protocol.HEADER.size, deadline)
        (size,) = protocol.HEADER.unpack(header)
        if size > protocol.MAX_FRAME_BYTES:
            raise WorkerDied(f"worker {self.slot} sent an oversized frame")
        body = self.transport.recv_exact(size, deadline)
        return json.loads(body.decode("utf-8"))

    def close(self) -> None:
        if self.alive:
            with contextlib.suppress(WorkerDied, WorkerLost):
                self._write({"op": "shutdown"})
            self.transport.stop()
        else:
            self.transport.kill()

    def kill(self) -> None:
        self.transport.kill()


class _Slots:
    """The pool's free request slots (PIPELINE_DEPTH per worker): a request takes one of the worker
    with the most free slots, so work spreads over the workers before any holds a second request."""

    def __init__(self) -> None:
        self._free: dict[WorkerHandle, int] = {}
        self._condition = threading.Condition()

    def put(self, handle: WorkerHandle) -> None:
        with self._condition:
            self._free[handle] = self._free.get(handle, 0) + 1
            self._condition.notify()

    def get(self) -> WorkerHandle:
        with self._condition:
            self._condition.wait_for(lambda: bool(self._free))
            handle = max(self._free, key=self._free.__getitem__)  # the first of the freest
            self._free[handle] -= 1
            if not self._free[handle]:
                del self._free[handle]
            return handle


class _Start:
    """How a start of the pool's workers goes: who is up, who failed, and waiting for either."""

    def __init__(self, size: int) -> None:
        self._pending = size
        self._up = 0
        self._condition = threading.Condition()
        self.error: BaseException | None = None

    def started(self) -> None:
        with self._condition:
            self._pending -= 1
            self._up += 1
            self._condition.notify_all()

    def failed(self, exc: BaseException) -> None:
        with self._condition:
            self._pending -= 1
            self.error = self.error or exc
            self._condition.notify_all()

    def wait_for_one(self) -> None:
        with self._condition:
            self._condition.wait_for(lambda: self._up > 0 or self._pending == 0)

    def wait_for_all(self) -> None:
        with self._condition:
            self._condition.wait_for(lambda: self._pending == 0)


class WorkerPool:
    """A fixed number of warm workers; `execute` is thread-safe and blocks for a free worker."""

    def __init__(
        self,
        size: int,
        launch: LaunchCommand | None = None,
        *,
        transport: Callable[[int], Transport] | None = None,
        env: dict[str, str] | None = None,
        backend_name: str,
        image: str = "",
        start_timeout_s: float = 30.0,
        max_retries: int = 2,
        tests_dir: str | None = None,
        compiled_tests_dir: Path | None = None,
    ) -> None:
        """`tests_dir`: the harness's test directory in the workers; when given, test modules are
        compiled here on the host once per distinct test set instead of once per worker, and kept
        in `compiled_tests_dir` between runs when that is given (see precompile.py)."""
        if size < 1:
            raise ValueError(f"worker pool size must be >= 1, got {size}")
        if (launch is None) == (transport is None):
            raise ValueError("WorkerPool needs exactly one of launch (an argv) or transport (a factory)")
        self.size = size
        self.launch = launch
        self.transport = transport
        self.env = env
        self.backend_name = backend_name
        self.image = image
        self.start_timeout_s = start_timeout_s
        self.max_retries = max_retries
        self._idle = _Slots()
        self._handles: list[WorkerHandle] = []
        self._lock = threading.Lock()
        self._closed = False
        # the lazy start: workers join the pool one by one as each comes up, so work begins when
        # the first is ready instead of the last; None when no start is under way or done
        self._starting: _Start | None = None
        self._start_threads: list[threading.Thread] = []  # close() waits for them (see there)
        self._launcher = Launcher()
        self.restarts = 0
        self.executions = 0
        self._compiler = HostTestCompiler(tests_dir, store_dir=compiled_tests_dir) if tests_dir else None
        self._dispatch: ThreadPoolExecutor | None = None  # execute_many's threads (see _dispatcher)
        self._dispatch_prefix = f"codegym-pool-{id(self):x}"

    def start(self) -> None:
        """Start every worker now and wait for all of them (otherwise they start on first use);
        if any cannot start, none is kept and the error is raised."""
        with self._lock:
            start = self._begin_start()
        start.wait_for_all()
        if start.error is None:
            return
        with self._lock:
            handles, self._handles = self._handles, []
            if self._starting is start:
                self._starting = None
            self._idle = _Slots()
        for handle in handles:  # the ones that did start would otherwise be leaked
            handle.kill()
        raise start.error

    def start_in_background(self) -> None:
        """Start the workers without waiting; each takes work as soon as it is up."""
        with self._lock:
            self._begin_start()

    def _begin_start(self) -> _Start:
        """(Under the lock.) Launch every worker in its own thread unless a start is under way or
        done; a worker that comes up goes straight to the idle queue."""
        if self._closed:
            raise RuntimeError("the sandbox pool is closed")
        if self._starting is None:
            start = self._starting = _Start(self.size)
            for slot in range(self.size):
                name = f"codegym-worker-{slot}-start"
                thread = threading.Thread(target=self._start_one, args=(start, slot), name=name, daemon=True)
                self._start_threads.append(thread)
                thread.start()
        return self._starting

    def _start_one(self, start: _Start, slot: int) -> None:
        if self._closed:  # closed before this worker's turn: its launcher is gone
            start.failed(WorkerStartError("the sandbox pool is closed"))
            return
        handle = self._new_handle(slot)
        try:
            handle.start()
        except BaseException as exc:
            start.failed(exc)
            return
        with self._lock:
            if self._closed or self._starting is not start:
                handle.kill()
                start.failed(WorkerStartError("the sandbox pool is closed"))
                return
            self._handles.append(handle)
            for _ in range(PIPELINE_DEPTH):
                self._idle.put(handle)
        start.started()

    def _new_handle(self, slot: int) -> WorkerHandle:
        if self.transport is not None:
            channel = self.transport(slot)
        else:
            assert self.launch is not None
            channel = PipeTransport(slot, self.launch(slot), self.env, self._launcher)
        return WorkerHandle(slot, channel, self.start_timeout_s)

    def _ensure_started(self) -> None:
        """Return once at least one worker is up. When none could start, the error is raised here,
        and the next call starts them all again."""
        with self._lock:
            if self._handles:
                return
            start = self._begin_start()
        start.wait_for_one()
        with self._lock:
            if self._handles:
                return
            if self._starting is start:
                self._starting = None
        raise start.error or WorkerStartError("no sandbox worker started")

    def _replace(self, handle: WorkerHandle) -> WorkerHandle:
        """A fresh worker in the place of `handle`'s; one per worker, however many of the requests it
        held ask (the first to ask starts it, the others get it)."""
        with handle.replacing:
            if handle.replacement is not None:
                return handle.replacement
            handle.retire()
            handle.kill()
            if self._closed:  # close() may run while executions are in flight (SIGINT): start nothing new
                raise WorkerStartError("the sandbox pool is closed")
            self.restarts += 1
            fresh = self._new_handle(handle.slot)
            with self._lock:
                self._handles = [fresh if h is handle else h for h in self._handles]
            fresh.start()
            handle.replacement = fresh
            return fresh

    def execute(self, request: ExecRequest) -> ExecResult:
        try:
            self._ensure_started()
        except WorkerStartError as exc:
            return ExecResult.sandbox_error(str(exc), backend=self.backend_name)
        wire = request.to_wire()
        prepared = self._compiler.wire_for(request) if self._compiler is not None and request.tests else None
        deadline = request.limits.timeout_s + HOST_GRACE_S
        handle = self._idle.get()
        infra_failures = 0
        faults_during_run = 0
        attempts = 0
        resends = 0
        try:
            while True:
                attempts += 1
                try:
                    while handle.replacement is not None:  # a slot of a worker replaced since
                        handle = handle.replacement
                    if not handle.alive:
                        handle = self._replace(handle)
                    started = time.monotonic()
                    raw = handle.execute(wire, deadline, prepared)
                    self.executions += 1
                    raw.setdefault("wall_s", time.monotonic() - started)
                    fault = raw.pop("fault", None)
                    if fault is not None:
                        raise WorkerDied(f"the {fault} failed during the run: {raw.get('message', '')}")
                    result = ExecResult.from_dict(
                        {**raw, "backend": self.backend_name, "image": self.image, "attempts": attempts}
                    )
                    if result.status is ExecStatus.SANDBOX_ERROR and infra_failures < self.max_retries:
                        infra_failures += 1
                        handle = self._safe_replace(handle)
                        continue
                    return result
                except NotStarted as exc:
                    attempts -= 1  # it never ran
                    resends += 1
                    handle = self._safe_replace(handle)
                    if resends > MAX_RESENDS:
                        return ExecResult.sandbox_error(
                            str(exc), backend=self.backend_name, attempts=attempts
                        )
                except (WorkerDied, WorkerUnresponsive) as exc:
                    faults_during_run += 1
                    handle = self._safe_replace(handle)
                    if faults_during_run >= 2:
                        return ExecResult(
                            status=ExecStatus.ERROR,
                            message=f"the program brought down the sandbox twice: {exc}",
                            flags=(Flag.KILLED_WORKER.value,),
                            backend=self.backend_name,
                            image=self.image,
                            attempts=attempts,
                        )
                except (WorkerLost, WorkerStartError, OSError) as exc:
                    infra_failures += 1
                    handle = self._safe_replace(handle)
                    if infra_failures > self.max_retries:
                        return ExecResult.sandbox_error(
                            str(exc), backend=self.backend_name, attempts=attempts
                        )
        finally:
            self._idle.put(handle)

    def _safe_replace(self, handle: WorkerHandle) -> WorkerHandle:
        """Replace a worker; if the replacement cannot start, keep a dead handle (next use retries)."""
        try:
            return self._replace(handle)
        except WorkerStartError:
            return handle

    def execute_many(
        self,
        requests: Iterable[ExecRequest],
        *,
        on_result: Callable[[int, ExecResult], None] | None = None,
        max_concurrency: int | None = None,
    ) -> list[ExecResult]:
        """Run requests with bounded concurrency; results come back in input order."""
        items = list(requests)
        self._ensure_started()
        results: list[ExecResult | None] = [None] * len(items)
        slots = PIPELINE_DEPTH * self.size
        concurrency = max(1, min(max_concurrency or slots, slots, len(items) or 1))

        def run(index: int) -> None:
            result = self.execute(items[index])
            results[index] = result
            if on_result is not None:
                on_result(index, result)

        nested = threading.current_thread().name.startswith(self._dispatch_prefix)
        if (concurrency < slots and len(items) > concurrency) or nested:
            with ThreadPoolExecutor(max_workers=concurrency, thread_name_prefix="codegym-sandbox") as pool:
                for future in [pool.submit(run, i) for i in range(len(items))]:
                    future.result()
        else:
            dispatcher = self._dispatcher()
            futures = [dispatcher.submit(run, i) for i in range(len(items))]
            wait(futures)  # one wake-up for the batch, not one per result (a context switch each)
            for future in futures:
                future.result()
        return [r for r in results if r is not None]

    def _dispatcher(self) -> ThreadPoolExecutor:
        """One thread per worker, shared by every execute_many call: as many threads as workers, so
        no thread waits for a worker another holds. With a pool of threads per call, calls made at
        once (the CLI keeps three chunks in flight) had their threads queue for the same workers,
        waking each other at every result (the host's largest cost after its start)."""
        with self._lock:
            if self._dispatch is None:
                self._dispatch = ThreadPoolExecutor(
                    max_workers=PIPELINE_DEPTH * self.size, thread_name_prefix=self._dispatch_prefix
                )
            return self._dispatch

    def describe(self) -> list[WorkerInfo]:
        return [WorkerInfo(slot=h.slot, pid=h.transport.pid, details=dict(h.info)) for h in self._handles]

    def close(self) -> None:
        with self._lock:
            self._closed = True
            handles, self._handles = self._handles, []
            dispatch, self._dispatch = self._dispatch, None
        if dispatch is not None:
            dispatch.shutdown(wait=False)  # what is queued still runs, and fails on the closed pool
        # All at once: a worker's stop waits on its process or its container's removal (a round
        # trip to the engine), and one after another that wait was paid once per worker.
        stoppers = [
            threading.Thread(target=handle.close, name=f"codegym-worker-{handle.slot}-stop", daemon=True)
            for handle in handles[1:]
        ]
        for stopper in stoppers:
            stopper.start()
        try:
            if handles:
                handles[0].close()
        finally:
            for stopper in stoppers:
                stopper.join()
        # A worker still starting (the pool closed right after a start began, e.g. a command that
        # failed on its arguments) stops itself once up; wait for that, so that no worker (for docker,
        # no container) is left behind when this returns and the process exits.
        for thread in self._start_threads:
            thread.join(timeout=self.start_timeout_s + HOST_GRACE_S)
        self._launcher.close()
