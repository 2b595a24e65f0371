"""The driver side: one thread that owns every call to the sandbox actors.

* Bounded in-flight work: an actor never holds more than its capacity of unanswered requests; the
  rest wait in the caller's own list (nothing is pushed into Ray's queues ahead of time).
* An actor or node that dies mid-request: the requests it held go back to the front of the queue
  and run on another actor; a request gets a `sandbox_error` only after `max_retries` such losses.
  A result is taken from exactly one actor call, so a row is never lost nor duplicated.
* Actors are kept at `actors_per_node` on every live matching node: dead ones are replaced, nodes
  that join get actors, nodes that left are forgotten.
* Results are placed by index, so every job gets them in request order.
"""

from __future__ import annotations

import contextlib
import itertools
import threading
import time
from collections import OrderedDict, deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import ray
from ray.exceptions import ActorUnavailableError, GetTimeoutError, RayActorError, RayError
from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

from codegym.sandbox.ray.actor import SandboxActor
from codegym.sandbox.ray.config import RaySandboxConfig

RECONCILE_EVERY_S = 2.0
NODE_RETRY_AFTER_S = 30.0  # a node whose actor could not start is tried again after this long
BLOB_REFS = 4096


@dataclass
class Job:
    kind: str
    size: int
    on_result: Callable[[int, Any], None] | None = None
    results: list[Any] = field(default_factory=list)
    remaining: int = 0
    done: threading.Event = field(default_factory=threading.Event)

    def __post_init__(self) -> None:
        self.results = [None] * self.size
        self.remaining = self.size
        if self.size == 0:
            self.done.set()


@dataclass
class Item:
    job: Job
    index: int
    key: str
    payload: tuple
    blob: Callable[[], Any]  # builds the task part of `key` when it must travel
    attempts: int = 0
    force_blob: bool = False


@dataclass
class Slot:
    """One actor as the dispatcher sees it."""

    number: int
    node_id: str
    handle: Any
    ready_ref: Any
    created: float
    info: dict[str, Any] | None = None
    inflight: int = 0
    capacity: int = 1
    batch: int = 1
    known: set[str] = field(default_factory=set)


class Dispatcher:
    def __init__(
        self,
        config: RaySandboxConfig,
        inner_options: dict[str, Any],
        *,
        make_failure: Callable[[Item, str], Any],
        decode: Callable[[str, Any, Slot], Any],
    ) -> None:
        """`make_failure(item, why)`: the result of an item whose retries ran out; `decode(kind, raw,
        slot)`: an actor's raw result as the job's result type."""
        self.config = config
        self.inner_options = inner_options
        self.make_failure = make_failure
        self.decode = decode
        self._actor_class = ray.remote(SandboxActor)
        self._numbers = itertools.count()
        self._slots: dict[int, Slot] = {}
        self._pending: deque[Item] = deque()
        self._outstanding: dict[Any, tuple[Slot, list[Item]]] = {}
        self._blob_refs: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._wake = threading.Event()
        self._closed = False
        self._node_backoff: dict[str, float] = {}
        self._last_reconcile = 0.0
        self.actor_deaths = 0
        self.retries = 0
        self._thread: threading.Thread | None = None
        self._failure: str = ""

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self, wait_s: float) -> None:
        """Create the actors and wait until at least one is ready (all of them, up to `wait_s`)."""
        self._reconcile(force=True)
        if not self._slots:
            raise RuntimeError(self._no_node_message())
        deadline = time.monotonic() + wait_s
        refs = {slot.ready_ref: slot for slot in self._slots.values()}
        errors = []
        while refs and time.monotonic() < deadline:
            ready, _ = ray.wait(list(refs), num_returns=1, timeout=max(0.1, deadline - time.monotonic()))
            for ref in ready:
                slot = refs.pop(ref)
                try:
                    self._on_ready(slot, ray.get(ref))
                except RayError as exc:
                    errors.append(str(exc).strip().splitlines()[-1])
                    self._drop(slot)
        if not any(slot.info for slot in self._slots.values()):
            raise RuntimeError(
                "no sandbox actor started on the Ray cluster"
                + (f": {errors[0]}" if errors else f" within {wait_s:.0f} s (not enough free CPUs?)")
            )
        self._thread = threading.Thread(target=self._loop, name="codegym-ray-dispatch", daemon=True)
        self._thread.start()

    def close(self) -> None:
        self._closed = True
        self._wake.set()
        if self._thread is not None:
            self._thread.join(timeout=10)
        with self._lock:
            slots, self._slots = list(self._slots.values()), {}
            pending, self._pending = list(self._pending), deque()
        for item in pending + [i for _, items in self._outstanding.values() for i in items]:
            self._finish(item, self.make_failure(item, "the ray backend was closed"))
        self._outstanding.clear()
        closing = [slot.handle.close.remote() for slot in slots if slot.info]
        with contextlib.suppress(RayError, GetTimeoutError):
            ray.get(closing, timeout=20)
        for slot in slots:
            with contextlib.suppress(RayError):
                ray.kill(slot.handle, no_restart=True)

    # -- submitting --------------------------------------------------------------------------
    def submit(self, job: Job, items: list[Item]) -> Job:
        if self._closed:
            raise RuntimeError("the ray sandbox backend is closed")
        with self._lock:
            self._pending.extend(items)
        self._wake.set()
        return job

    def live_actors(self) -> list[Slot]:
        with self._lock:
            return [slot for slot in self._slots.values() if slot.info]

    # -- the loop ----------------------------------------------------------------------------
    def _loop(self) -> None:
        while not self._closed:
            try:
                self._step()
            except Exception as exc:  # the loop must outlive anything one step hits
                self._failure = f"{type(exc).__name__}: {exc}"
                time.sleep(0.1)

    def _step(self) -> None:
        if time.monotonic() - self._last_reconcile > RECONCILE_EVERY_S:
            self._reconcile()
        self._dispatch()
        refs = list(self._outstanding) + [s.ready_ref for s in self._slots.values() if not s.info]
        if not refs:
            self._fail_if_no_actors()
            self._wake.wait(0.5)
            self._wake.clear()
            return
        ready, _ = ray.wait(refs, num_returns=len(refs), timeout=0.02, fetch_local=True)
        if not ready:
            ready, _ = ray.wait(refs, num_returns=1, timeout=0.05)
        for ref in ready:
            if ref in self._outstanding:
                self._collect(ref)
            else:
                slot = next((s for s in self._slots.values() if s.ready_ref == ref), None)
                if slot is None:
                    continue
                try:
                    self._on_ready(slot, ray.get(ref))
                except RayError:
                    self._drop(slot)
        self._expire_starting()
        self._fail_if_no_actors()

    def _dispatch(self) -> None:
        while True:
            with self._lock:
                if not self._pending:
                    return
                candidates = [s for s in self._slots.values() if s.info and s.inflight < s.capacity]
                if not candidates:
                    return
                slot = min(candidates, key=lambda s: s.inflight / s.capacity)
                room = min(slot.batch, slot.capacity - slot.inflight)
                first = self._pending[0]
                batch = [self._pending.popleft()]
                while self._pending and len(batch) < room and self._pending[0].job is first.job:
                    batch.append(self._pending.popleft())
            self._send(slot, batch)

    def _send(self, slot: Slot, batch: list[Item]) -> None:
        keys, refs = [], []
        for item in batch:
            if (item.force_blob or item.key not in slot.known) and item.key not in keys:
                keys.append(item.key)
                refs.append(self._blob_ref(item))
                slot.known.add(item.key)
        payload = [(item.key, *item.payload) for item in batch]
        ref = slot.handle.run.remote(batch[0].job.kind, payload, keys, *refs)
        slot.inflight += len(batch)
        self._outstanding[ref] = (slot, batch)

    def _blob_ref(self, item: Item) -> Any:
        """The task part in Ray's object store, put there once per key (while recently used)."""
        ref = self._blob_refs.get(item.key)
        if ref is None:
            ref = self._blob_refs[item.key] = ray.put(item.blob())
            while len(self._blob_refs) > BLOB_REFS:
                self._blob_refs.popitem(last=False)
        else:
            self._blob_refs.move_to_end(item.key)
        return ref

    def _collect(self, ref: Any) -> None:
        slot, batch = self._outstanding.pop(ref)
        slot.inflight -= len(batch)
        try:
            raw = ray.get(ref)
        except (RayActorError, ActorUnavailableError) as exc:
            self.actor_deaths += 1
            self._drop(slot)
            self._retry(batch, f"sandbox actor on node {slot.node_id[:12]} died: {_short(exc)}")
            return
        except RayError as exc:  # the call itself failed (e.g. its inner sandbox raised): try elsewhere
            self._retry(batch, f"sandbox actor call failed: {_short(exc)}")
            return
        missing = []
        for item, value in zip(batch, raw, strict=True):
            if value is None:  # the actor evicted this task part: send it again, with the part
                item.force_blob = True
                slot.known.discard(item.key)
                missing.append(item)
            else:
                self._finish(item, self.decode(item.job.kind, value, slot))
        if missing:
            with self._lock:
                self._pending.extendleft(reversed(missing))

    def _retry(self, batch: list[Item], why: str) -> None:
        again = []
        for item in batch:
            item.attempts += 1
            item.force_blob = True
            if item.attempts > self.config.max_retries:
                self._finish(item, self.make_failure(item, f"{why} (after {item.attempts} attempts)"))
            else:
                self.retries += 1
                again.append(item)
        with self._lock:
            self._pending.extendleft(reversed(again))

    def _finish(self, item: Item, result: Any) -> None:
        job = item.job
        if job.results[item.index] is not None:
            return  # never twice: the first result of an item is its result
        job.results[item.index] = result
        if job.on_result is not None:
            with contextlib.suppress(Exception):
                job.on_result(item.index, result)
        job.remaining -= 1
        if job.remaining == 0:
            job.done.set()

    # -- actors ------------------------------------------------------------------------------
    def _on_ready(self, slot: Slot, info: dict[str, Any]) -> None:
        slot.info = info
        workers = max(1, int(info.get("workers", 1)))
        slot.capacity = self.config.max_inflight_per_actor or 2 * workers
        slot.batch = max(1, min(slot.capacity, self.config.batch_size or workers // 2))

    def _drop(self, slot: Slot) -> None:
        with self._lock:
            self._slots.pop(slot.number, None)
        with contextlib.suppress(RayError):
            ray.kill(slot.handle, no_restart=True)
        self._last_reconcile = 0.0  # replace it on the next step

    def _expire_starting(self) -> None:
        now = time.monotonic()
        for slot in list(self._slots.values()):
            if not slot.info and now - slot.created > self.config.actor_start_timeout_s:
                self._node_backoff[slot.node_id] = now + NODE_RETRY_AFTER_S
                self._drop(slot)

    def _matching_nodes(self) -> list[str]:
        nodes = []
        for node in ray.nodes():
            if not node.get("Alive"):
                continue
            resources = node.get("Resources", {})
            labels = node.get("Labels", {}) or {}
            if resources.get("CPU", 0) < self.config.num_cpus_per_actor:
                continue
            if any(resources.get(k, 0) < v for k, v in self.config.node_resources.items()):
                continue
            if any(labels.get(k) != v for k, v in self.config.node_labels.items()):
                continue
            nodes.append(node["NodeID"])
        return nodes

    def _reconcile(self, force: bool = False) -> None:
        self._last_reconcile = time.monotonic()
        try:
            alive = set(self._matching_nodes())
        except RayError:
            return
        now = time.monotonic()
        for slot in list(self._slots.values()):
            # a node that left: a starting actor there is dropped; a live one's calls fail and retry
            if slot.node_id not in alive and not slot.info:
                self._drop(slot)
        for node_id in sorted(alive):
            if not force and self._node_backoff.get(node_id, 0) > now:
                continue
            present = sum(1 for s in self._slots.values() if s.node_id == node_id)
            for _ in range(self.config.actors_per_node - present):
                self._create(node_id)

    def _create(self, node_id: str) -> None:
        options: dict[str, Any] = {
            "num_cpus": self.config.num_cpus_per_actor,
            "max_restarts": 0,  # the dispatcher replaces actors itself, with the work they held
            "max_concurrency": 64,  # concurrent batches; the inner pool bounds the real work
            "scheduling_strategy": NodeAffinitySchedulingStrategy(node_id, soft=False),
            "namespace": self.config.namespace,
        }
        if self.config.node_resources:
            options["resources"] = dict(self.config.node_resources)
        handle = self._actor_class.options(**options).remote(self.config.inner_backend, self.inner_options)
        number = next(self._numbers)
        slot = Slot(number, node_id, handle, handle.ready.remote(), time.monotonic())
        with self._lock:
            self._slots[number] = slot

    def _fail_if_no_actors(self) -> None:
        """With no actor alive or starting, waiting items can never run: they fail now."""
        if self._slots or not self._pending:
            return
        with self._lock:
            pending, self._pending = list(self._pending), deque()
        for item in pending:
            self._finish(item, self.make_failure(item, self._no_node_message()))

    def _no_node_message(self) -> str:
        wanted = []
        if self.config.node_resources:
            wanted.append(f"resources {dict(self.config.node_resources)}")
        if self.config.node_labels:
            wanted.append(f"labels {dict(self.config.node_labels)}")
        wanted.append(f"{self.config.num_cpus_per_actor} CPU")
        return "no live node of the Ray cluster can host a sandbox actor (needs " + ", ".join(wanted) + ")"


def _short(exc: BaseException) -> str:
    lines = [line for line in str(exc).strip().splitlines() if line.strip()]
    return f"{type(exc).__name__}: {lines[0][:200] if lines else ''}"
