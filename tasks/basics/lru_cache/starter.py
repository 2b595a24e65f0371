from collections import OrderedDict


class LRUCache:
    """Fixed-capacity key/value cache that evicts the least recently used entry."""
