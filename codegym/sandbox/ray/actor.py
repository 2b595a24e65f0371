"""The sandbox actor: one per (node, slot), hosting an ordinary local (or Docker) backend on its node.

It keeps the task parts it was sent (content-addressed, bounded LRU), so a task's files cross the
network once per actor. It runs two kinds of work: `exec` (ExecRequests, results as dicts) and
`score` (reward judging on this node: candidates and their references are timed on the same machine,
with this actor's own reference yardsticks). Wrapped with `ray.remote` by the backend, which chooses
its node and resources.
"""

from __future__ import annotations

import os
import threading
import time
from collections import OrderedDict
from collections.abc import Sequence
from typing import Any

from codegym.sandbox.ray import wire

BLOB_CAPACITY = 4096


class _RecordingCache:
    """The reward judge's cache inside an actor: never hits, records which breakdowns the judge
    would store (sandbox errors never, hack flags only when confirmed), so the driver can store
    exactly those in the shared cache."""

    def __init__(self) -> None:
        from codegym.reward.cache import CacheStats

        self.stats = CacheStats()
        self.stored: set[str] = set()
        self._lock = threading.Lock()

    def get(self, key: str) -> None:
        return None

    def put(self, key: str, breakdown: Any) -> None:
        with self._lock:
            self.stored.add(key)

    def take(self, key: str) -> bool:
        with self._lock:
            if key in self.stored:
                self.stored.discard(key)
                return True
            return False

    def get_json(self, key: str) -> None:
        return None

    def set_json(self, key: str, value: dict) -> None:
        return None


class SandboxActor:
    def __init__(self, inner_backend: str, inner_options: dict[str, Any]) -> None:
        from codegym.sandbox.backend import create_backend

        self.backend = create_backend(inner_backend, **inner_options)
        self.backend.start()  # fail here (the driver gives the actor up) rather than on first use
        self._blobs: OrderedDict[str, Any] = OrderedDict()
        self._lock = threading.Lock()
        self._judges: dict[str, tuple[Any, _RecordingCache]] = {}
        self.blobs_received = 0
        self.executions = 0
        self.started = time.time()

    def ready(self) -> dict[str, Any]:
        import ray

        return {
            "node_id": ray.get_runtime_context().get_node_id(),
            "pid": os.getpid(),
            "image": self.backend.image,
            "workers": int(getattr(self.backend, "workers", 1)),
        }

    def stats(self) -> dict[str, Any]:
        with self._lock:
            return {
                "blobs_received": self.blobs_received,
                "blobs_held": len(self._blobs),
                "executions": self.executions,
                "pid": os.getpid(),
            }

    def _keep(self, keys: Sequence[str], blobs: Sequence[Any]) -> None:
        with self._lock:
            for key, blob in zip(keys, blobs, strict=True):
                if key not in self._blobs:
                    self.blobs_received += 1
                self._blobs[key] = blob
                self._blobs.move_to_end(key)
            while len(self._blobs) > BLOB_CAPACITY:
                self._blobs.popitem(last=False)

    def _blob(self, key: str) -> Any:
        with self._lock:
            blob = self._blobs.get(key)
            if blob is not None:
                self._blobs.move_to_end(key)
            return blob

    def run(self, kind: str, items: list[tuple], keys: list[str], *blobs: Any) -> list[dict | None]:
        """Run a batch; an item whose task part this actor no longer holds comes back as None (the
        driver sends it again with its task part)."""
        self._keep(keys, blobs)
        found = [(position, item, self._blob(item[0])) for position, item in enumerate(items)]
        runnable = [(position, item, blob) for position, item, blob in found if blob is not None]
        out: list[dict | None] = [None] * len(items)
        if kind == "exec":
            done = self._exec(runnable)
        elif kind == "score":
            done = self._score(runnable)
        else:
            raise ValueError(f"unknown work kind {kind!r}")
        for (position, _, _), value in zip(runnable, done, strict=True):
            out[position] = value
        with self._lock:
            self.executions += len(runnable)
        return out

    def _exec(self, runnable: list[tuple[int, tuple, Any]]) -> list[dict]:
        requests = [wire.join_request(blob, item[1], item[2]) for _, item, blob in runnable]
        return [result.to_dict() for result in self.backend.execute_many(requests)]

    def _judge(self, config: Any) -> tuple[Any, _RecordingCache]:
        from codegym.reward.cache import MemoryCache
        from codegym.reward.scoring import RewardJudge

        fingerprint = config.fingerprint()
        with self._lock:
            entry = self._judges.get(fingerprint)
            if entry is None:
                recorder = _RecordingCache()
                # this actor's own yardsticks: references timed on this node, kept for its lifetime
                judge = RewardJudge(self.backend, config, recorder, MemoryCache())  # type: ignore[arg-type]
                entry = self._judges[fingerprint] = (judge, recorder)
        return entry

    def _score(self, runnable: list[tuple[int, tuple, Any]]) -> list[dict]:
        from codegym.reward.cache import cache_key

        if not runnable:
            return []
        judge, recorder = self._judge(runnable[0][2][1])
        items = [(blob[0], item[1], item[2]) for _, item, blob in runnable]
        scored = judge.score_many(items)
        out = []
        for (task, code, _), sample in zip(items, scored, strict=True):
            key = cache_key(task.fingerprint, code, judge.config_fingerprint, self.backend.image)
            out.append(
                {
                    "breakdown": sample.breakdown.to_dict(),
                    "result": sample.result.to_dict() if sample.result is not None else None,
                    "storable": recorder.take(key),
                }
            )
        return out

    def prepare(self, tasks: list[Any], config: Any) -> int:
        """Judge these tasks' reference solutions on this node now (the yardsticks), not on first use."""
        judge, _ = self._judge(config)
        judge.prepare(tasks)
        return len(tasks)

    def close(self) -> None:
        self.backend.close()
