"""Test modules compiled on the host, once per distinct test set, for every worker.

A worker compiles a test set the first time it sees it; in a pool, each worker would do so for every
task. The host does it once (with the harness's own rewriting) and sends the bytecode; a worker whose
interpreter has a different bytecode magic number, or whose test directory differs, ignores it and
compiles for itself.

With a store directory, what the host compiled is also kept on disk between runs, one file per test
set, named by a digest of everything the bytecode depends on: the tests, the runner choice, the test
directory, the interpreter's bytecode magic and the rewriting code's own source (as __pycache__
keys a module's bytecode). Compiling HumanEval's 164 test sets costs a start of the CLI ~0.1 s of
CPU on the path to its first results. The store is the host's: no sandboxed process can reach it.
What it holds runs in the harness, so it is used only while the directory is the user's own and
writable by nobody else (made 0700, its files 0600). A file that is unreadable, truncated or fails
its checksum is compiled again and replaced.
"""

from __future__ import annotations

import contextlib
import functools
import hashlib
import importlib.util
import json
import os
import threading
from collections import OrderedDict
from pathlib import Path
from typing import Any

from codegym.sandbox.inside import testprep
from codegym.sandbox.types import ExecRequest

# CPython 3.11 builds AST objects with interpreter-wide recursion bookkeeping: two threads parsing at
# once can fail with "AST constructor recursion depth mismatch" (gh-106905, fixed in 3.12). Every
# thread of codegym that turns source into an AST in the host process holds this lock.
AST_LOCK = threading.Lock()

STORE_FORMAT = 1  # bump when a stored file's layout changes


def default_store_dir() -> Path:
    return Path.home() / ".cache" / "codegym" / "prepared-tests"


def store_dir_for(setting: str) -> Path | None:
    """A backend's `compiled_tests_dir` setting as a directory: `default`, `off` (None) or a path."""
    if setting == "off":
        return None
    if setting in ("", "default"):
        return default_store_dir()
    return Path(setting).expanduser()


@functools.cache
def _rewriter_fingerprint() -> str:
    """The test preparation's own code: a change to how tests are rewritten makes new entries."""
    return hashlib.sha256(Path(testprep.__file__).read_bytes()).hexdigest()


def _checksum(wire: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(wire, sort_keys=True).encode("utf-8")).hexdigest()


class HostTestCompiler:
    def __init__(self, tests_dir: str, max_entries: int = 1024, store_dir: Path | None = None) -> None:
        self.tests_dir = tests_dir
        self.max_entries = max_entries
        self.store_dir = store_dir
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
        digest = self._digest(key)
        wire = self._load(digest)
        if wire is None:
            with AST_LOCK:
                prepared = testprep.prepare(dict(request.tests), request.test_runner, self.tests_dir)
            wire = testprep.to_wire(prepared)
            wire["key"] = digest
            self._save(digest, wire)
        with self._lock:
            self._cache[key] = wire
            while len(self._cache) > self.max_entries:
                self._cache.popitem(last=False)
        return wire

    def _digest(self, key: tuple) -> str:
        magic = importlib.util.MAGIC_NUMBER.hex()
        material = (STORE_FORMAT, magic, _rewriter_fingerprint(), self.tests_dir, key)
        return hashlib.sha256(repr(material).encode("utf-8", "surrogatepass")).hexdigest()[:32]

    def _load(self, digest: str) -> dict[str, Any] | None:
        if self.store_dir is None or not self._store_is_private():
            return None
        try:
            stored = json.loads((self.store_dir / f"{digest}.json").read_bytes())
        except (OSError, ValueError):
            return None
        wire = stored.get("wire") if isinstance(stored, dict) else None
        if not isinstance(wire, dict) or wire.get("key") != digest or stored.get("sha256") != _checksum(wire):
            return None
        return wire

    def _save(self, digest: str, wire: dict[str, Any]) -> None:
        """Best effort (a read-only home only costs the next run the compile): a temporary file
        renamed into place, so a reader never sees half of one."""
        if self.store_dir is None:
            return
        path = self.store_dir / f"{digest}.json"
        temporary = path.with_name(f".{path.name}.{os.getpid()}.{threading.get_ident()}.tmp")
        try:
            self.store_dir.mkdir(mode=0o700, parents=True, exist_ok=True)
            if not self._store_is_private():
                return
            data = {"format": STORE_FORMAT, "sha256": _checksum(wire), "wire": wire}
            descriptor = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
            with open(descriptor, "w", encoding="utf-8") as handle:
                handle.write(json.dumps(data))
            os.replace(temporary, path)
        except OSError:
            with contextlib.suppress(OSError):
                temporary.unlink()

    def _store_is_private(self) -> bool:
        """The store directory belongs to this user and no one else may write to it (another user who
        could would choose the code the harness runs)."""
        assert self.store_dir is not None
        try:
            info = os.stat(self.store_dir)
        except OSError:
            return False
        return info.st_uid == os.getuid() and not info.st_mode & 0o022
