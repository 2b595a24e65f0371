"""Result cache for reward breakdowns: SQLite on disk by default, Redis when a URL is configured.

The key is a sha256 over (schema version, the judge's version — codegym's version and a hash of the
in-sandbox code —, task fingerprint, code, reward-config fingerprint, sandbox image), so a cached
breakdown can only ever be returned for exactly the same program judged the same way: a changed
judge, task, test, limit, weight, ruff rule or image is a different key. Sandbox errors are never
stored, and a breakdown with a hack flag only when a second judgment raised the same flags.
"""

from __future__ import annotations

import abc
import functools
import hashlib
import json
import sqlite3
import threading
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegym.errors import CodegymError, Setting
from codegym.reward.breakdown import RewardBreakdown

SCHEMA_VERSION = "codegym-reward-v2"
REDIS_SCHEMES = ("redis://", "rediss://", "unix://")
CACHE_FORMS = "default, off, memory, a .sqlite file path, or redis://host:port/db (also rediss://, unix://)"


class CacheError(CodegymError, ValueError):
    """A cache that cannot be opened (an unknown form, an unreachable server, an unusable file)."""


@functools.cache
def judge_version() -> str:
    """codegym's version and a hash of the code that decides a result: the sandbox (what runs inside
    it and the requests built for it), the reward (detectors, components, scoring) and the tasks
    (cases, and the shown cases the importers find), so a cached breakdown never outlives a change
    to any of them."""
    from codegym import __version__

    package = Path(__file__).resolve().parent.parent
    digest = hashlib.sha256()
    for directory in ("sandbox", "reward", "tasks"):
        for path in sorted((package / directory).rglob("*.py")):
            digest.update(path.relative_to(package).as_posix().encode() + b"\0" + path.read_bytes())
    return f"{__version__}+{digest.hexdigest()[:12]}"


@functools.cache
def machine_fingerprint() -> str:
    """What a reference's CPU time depends on besides the code: the host and its processor."""
    import os
    import platform

    model = ""
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as handle:
            model = next(
                (line.split(":", 1)[1].strip() for line in handle if line.startswith("model name")), ""
            )
    except OSError:
        pass
    text = f"{platform.node()}|{platform.machine()}|{os.cpu_count()}|{model}"
    return hashlib.sha256(text.encode()).hexdigest()[:16]


def cache_key(
    task_fingerprint: str, code: str, config_fingerprint: str, image: str, kind: str = "breakdown"
) -> str:
    digest = hashlib.sha256()
    for part in (SCHEMA_VERSION, judge_version(), kind, task_fingerprint, config_fingerprint, image, code):
        # surrogatepass: a program with a lone surrogate still gets a key (and then its `error`
        # verdict from the judge) instead of stopping a training step with UnicodeEncodeError
        digest.update(part.encode("utf-8", "surrogatepass"))
        digest.update(b"\0")
    return digest.hexdigest()


@dataclass
class CacheStats:
    hits: int = 0
    misses: int = 0
    writes: int = 0

    @property
    def hit_rate(self) -> float:
        lookups = self.hits + self.misses
        return self.hits / lookups if lookups else 0.0

    def as_dict(self) -> dict[str, float]:
        return {"hits": self.hits, "misses": self.misses, "writes": self.writes, "hit_rate": self.hit_rate}


class ResultCache(abc.ABC):
    def __init__(self) -> None:
        self.stats = CacheStats()
        self._stats_lock = threading.Lock()

    @abc.abstractmethod
    def _get(self, key: str) -> str | None: ...

    @abc.abstractmethod
    def _set(self, key: str, value: str) -> None: ...

    def get_json(self, key: str) -> dict[str, Any] | None:
        raw = self._get(key)
        with self._stats_lock:
            if raw is None:
                self.stats.misses += 1
            else:
                self.stats.hits += 1
        return json.loads(raw) if raw is not None else None

    def set_json(self, key: str, value: dict[str, Any]) -> None:
        self._set(key, json.dumps(value, sort_keys=True))
        with self._stats_lock:
            self.stats.writes += 1

    def get(self, key: str) -> RewardBreakdown | None:
        data = self.get_json(key)
        return RewardBreakdown.from_dict(data, cached=True) if data is not None else None

    def put(self, key: str, breakdown: RewardBreakdown) -> None:
        if breakdown.total is None:
            return  # a sandbox error is not a result
        self.set_json(key, breakdown.to_dict())

    def close(self) -> None:  # noqa: B027 - optional
        """Release connections."""


class MemoryCache(ResultCache):
    """Process-local; for tests and one-off runs."""

    def __init__(self) -> None:
        super().__init__()
        self._data: dict[str, str] = {}

    def _get(self, key: str) -> str | None:
        return self._data.get(key)

    def _set(self, key: str, value: str) -> None:
        self._data[key] = value


class SQLiteCache(ResultCache):
    def __init__(self, path: str | Path) -> None:
        super().__init__()
        self.path = Path(path).expanduser()
        self._lock = threading.Lock()
        try:
            self.path.parent.mkdir(parents=True, exist_ok=True)
            self._connection = sqlite3.connect(str(self.path), check_same_thread=False, timeout=30)
            with self._lock, self._connection:
                self._connection.execute("PRAGMA journal_mode=WAL")
                self._connection.execute(
                    "CREATE TABLE IF NOT EXISTS results "
                    "(key TEXT PRIMARY KEY, value TEXT NOT NULL, created REAL)"
                )
        except (OSError, sqlite3.Error) as exc:
            raise CacheError(f"cannot use {self.path} as a SQLite cache: {exc}") from exc

    def _get(self, key: str) -> str | None:
        with self._lock:
            row = self._connection.execute("SELECT value FROM results WHERE key = ?", (key,)).fetchone()
        return row[0] if row else None

    def _set(self, key: str, value: str) -> None:
        with self._lock, self._connection:
            self._connection.execute(
                "INSERT OR REPLACE INTO results (key, value, created) VALUES (?, ?, ?)",
                (key, value, time.time()),
            )

    def close(self) -> None:
        with self._lock:
            self._connection.close()


class RedisCache(ResultCache):
    def __init__(
        self,
        url: str,
        *,
        prefix: str = "codegym:reward:",
        ttl_s: int | None = None,
        connect_timeout_s: float = 5.0,
    ) -> None:
        try:
            import redis
        except ImportError as exc:
            raise CacheError(f"cache {url}: the redis package is not installed (pip install redis)") from exc

        super().__init__()
        self.prefix = prefix
        self.ttl_s = ttl_s
        try:
            # a bounded connect: an unreachable host fails in seconds, not after the OS's minutes
            self._client = redis.Redis.from_url(url, socket_connect_timeout=connect_timeout_s)
            self._client.ping()
        except (redis.RedisError, ValueError) as exc:
            raise CacheError(
                f"cannot reach the Redis cache at {url}: {exc}; start the server, or use another cache "
                f"({CACHE_FORMS})"
            ) from exc

    def _get(self, key: str) -> str | None:
        raw = self._client.get(self.prefix + key)
        return raw.decode("utf-8") if raw is not None else None

    def _set(self, key: str, value: str) -> None:
        self._client.set(self.prefix + key, value, ex=self.ttl_s)

    def close(self) -> None:
        self._client.close()


def default_cache_path() -> Path:
    return Path.home() / ".cache" / "codegym" / "reward.sqlite"


def default_yardstick_path() -> Path:
    return Path.home() / ".cache" / "codegym" / "yardsticks.sqlite"


def open_result_cache(spec: str) -> ResultCache | None:
    """The result cache as a command or config names it: `off` → None, `default` → the default
    SQLite file, anything else → `open_cache`. A failure names the `cache` setting."""
    if spec == "off":
        return None
    try:
        return open_cache(None if spec == "default" else spec)
    except CacheError as exc:
        raise CacheError(Setting("cache"), ": ", *exc.parts) from exc


def open_yardsticks(spec: str) -> ResultCache | None:
    """The store of reference measurements: `off` → None (they go to the result cache, if any),
    `memory` → kept by this process only, `default` → ~/.cache/codegym/yardsticks.sqlite, else a
    SQLite file path."""
    if spec == "off":
        return None
    if spec == "memory":
        return MemoryCache()
    if "://" in spec:  # taken as a path, it would create a folder named after the scheme
        raise CacheError(
            Setting("yardsticks"), f": unknown store {spec!r}; use default, off or a .sqlite file path"
        )
    try:
        return SQLiteCache(default_yardstick_path() if spec == "default" else Path(spec))
    except CacheError as exc:
        raise CacheError(Setting("yardsticks"), ": ", *exc.parts) from exc


def open_cache(spec: str | None) -> ResultCache:
    """`redis://...` → Redis; `memory` → in-process; a path (or None → the default path) → SQLite.

    Any other URL-like spec (`scheme://...`) is refused: taken as a path it would create a folder
    named after the scheme."""
    if spec and spec.startswith(REDIS_SCHEMES):
        return RedisCache(spec)
    if spec == "memory":
        return MemoryCache()
    if spec and "://" in spec:
        raise CacheError(f"unknown cache {spec!r}; use {CACHE_FORMS}")
    return SQLiteCache(spec or default_cache_path())
