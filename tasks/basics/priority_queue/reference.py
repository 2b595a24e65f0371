import heapq
import itertools


class PriorityQueue:
    """Min-priority queue of unique items supporting update and removal."""

    def __init__(self) -> None:
        self._heap: list[list] = []
        self._entries: dict = {}
        self._counter = itertools.count()

    def push(self, item, priority) -> None:
        if item in self._entries:
            raise KeyError(item)
        entry = [priority, next(self._counter), item, True]
        self._entries[item] = entry
        heapq.heappush(self._heap, entry)

    def _discard_stale(self) -> None:
        while self._heap and not self._heap[0][3]:
            heapq.heappop(self._heap)

    def pop(self) -> tuple:
        self._discard_stale()
        if not self._heap:
            raise IndexError("pop from an empty priority queue")
        priority, _, item, _ = heapq.heappop(self._heap)
        del self._entries[item]
        return item, priority

    def peek(self) -> tuple:
        self._discard_stale()
        if not self._heap:
            raise IndexError("peek into an empty priority queue")
        priority, _, item, _ = self._heap[0]
        return item, priority

    def remove(self, item) -> None:
        entry = self._entries.pop(item)
        entry[3] = False

    def update(self, item, priority) -> None:
        self.remove(item)
        self.push(item, priority)

    def __len__(self) -> int:
        return len(self._entries)

    def __contains__(self, item) -> bool:
        return item in self._entries

    def __bool__(self) -> bool:
        return bool(self._entries)
