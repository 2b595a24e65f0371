"""Test modules compiled on the host, once per distinct test set, for every worker.

A worker compiles a test set the first time it sees it; in a pool, each worker would do so for every
task. The host does it once (with the harness's own rewriting) and sends the bytecode; a worker whose
interpreter has a different bytecode magic number, or whose test directory differs, ignores it and
compiles for itself.
"""

from __future__ import annotations

import hashlib
import threading
from collections import OrderedDict
from typing import Any

from codegym.sandbox.inside import testprep
from codegym.sandbox.types import ExecRequest

# CPython 3.11 builds AST objects with interpreter-wide recursion bookkeeping: two threads parsing at
# once can fail with "AST constructor recursion depth mismatch" (gh-106905, fixed in 3.12). Every
# thread of codegym that turns source into an AST in the host process holds this lock.
AST_LOCK = threading.Lock()


class HostTestCompiler:
    def __init__(self, tests_dir: str, max_entries: int = 1024) -> None:
        self.tests_dir = tests_dir
        self.max_entries = max_entries
        self._cache: OrderedDict[tuple, dict[str, Any]] = OrderedDict()
        self._lock = threading.Lock()

    def wire_for(self, request: ExecRequest) -> dict[str, Any]:
        """The prepared tests as sent to a worker that has not seen them yet; `wire["key"]` names them
        for the requests that follow (a worker keeps what it was sent, see `WorkerPool.execute`)."""
        key = (request.test_runner, tuple(sorted(request.tests.items())))
        with self._lock:
            wire = self._cache.get(key)
            if wire is not None:
                self._cache.move_to_end(key)
                return wire
        with AST_LOCK:
            prepared = testprep.prepare(dict(request.tests), request.test_runner, self.tests_dir)
        wire = testprep.to_wire(prepared)
        digest = hashlib.sha256(repr(key).encode("utf-8", "surrogatepass")).hexdigest()[:24]
        wire["key"] = digest
        with self._lock:
            self._cache[key] = wire
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return wire
