"""The cache template. Subclasses only decide which key to evict."""

from abc import ABC, abstractmethod
from collections.abc import Hashable

from cachekit.clock import LogicalClock
from cachekit.stats import CacheStats


class BaseCache(ABC):
    """A bounded key/value cache.

    The base class stores the data, enforces the capacity and keeps `stats`. It tells the
    eviction policy what happens through four hooks that subclasses implement:

    - `_record_insert(key)`: a new key was stored;
    - `_record_access(key)`: an existing key was read by a successful `get`, or overwritten by `put`;
    - `_record_removal(key)`: a key left the cache (evicted or deleted);
    - `_choose_victim()`: return the stored key to evict; called by `put` before inserting a new
      key into a full cache.

    `self.clock` provides increasing timestamps for recency bookkeeping.
    """

    def __init__(self, capacity: int) -> None:
        if capacity < 1:
            raise ValueError("capacity must be at least 1")
        self.capacity = capacity
        self.stats = CacheStats()
        self.clock = LogicalClock()
        self._data: dict[Hashable, object] = {}

    def get(self, key: Hashable, default: object = None) -> object:
        if key not in self._data:
            self.stats.misses += 1
            return default
        self.stats.hits += 1
        self._record_access(key)
        return self._data[key]

    def put(self, key: Hashable, value: object) -> None:
        if key in self._data:
            self._data[key] = value
            self._record_access(key)
            return
        if len(self._data) >= self.capacity:
            victim = self._choose_victim()
            del self._data[victim]
            self._record_removal(victim)
            self.stats.evictions += 1
        self._data[key] = value
        self._record_insert(key)

    def delete(self, key: Hashable) -> bool:
        if key not in self._data:
            return False
        del self._data[key]
        self._record_removal(key)
        return True

    def __contains__(self, key: Hashable) -> bool:
        return key in self._data

    def __len__(self) -> int:
        return len(self._data)

    @abstractmethod
    def _record_insert(self, key: Hashable) -> None: ...

    @abstractmethod
    def _record_access(self, key: Hashable) -> None: ...

    @abstractmethod
    def _record_removal(self, key: Hashable) -> None: ...

    @abstractmethod
    def _choose_victim(self) -> Hashable: ...
