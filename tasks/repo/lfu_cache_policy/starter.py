from collections.abc import Hashable

from .base import BaseCache


class LFUCache(BaseCache):
    """Evicts the least frequently used key; ties go to the least recently used one."""
