from collections.abc import Hashable

from .base import BaseCache


class LFUCache(BaseCache):
    """Evicts the least frequently used key; ties go to the least recently used one."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self._uses: dict[Hashable, int] = {}
        self._last_used: dict[Hashable, int] = {}

    def _record_insert(self, key: Hashable) -> None:
        self._uses[key] = 1
        self._last_used[key] = self.clock.tick()

    def _record_access(self, key: Hashable) -> None:
        self._uses[key] += 1
        self._last_used[key] = self.clock.tick()

    def _record_removal(self, key: Hashable) -> None:
        del self._uses[key]
        del self._last_used[key]

    def _choose_victim(self) -> Hashable:
        return min(self._uses, key=lambda key: (self._uses[key], self._last_used[key]))

    def frequency(self, key: Hashable) -> int:
        return self._uses.get(key, 0)
