from collections import OrderedDict
from collections.abc import Hashable

from cachekit.base import BaseCache


class LRUCache(BaseCache):
    """Evicts the least recently used key."""

    def __init__(self, capacity: int) -> None:
        super().__init__(capacity)
        self._order: OrderedDict[Hashable, None] = OrderedDict()

    def _record_insert(self, key: Hashable) -> None:
        self._order[key] = None

    def _record_access(self, key: Hashable) -> None:
        self._order.move_to_end(key)

    def _record_removal(self, key: Hashable) -> None:
        del self._order[key]

    def _choose_victim(self) -> Hashable:
        return next(iter(self._order))
