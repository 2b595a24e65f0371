class Trie:
    """A set of strings stored as a prefix tree."""

    _END = object()

    def __init__(self) -> None:
        self._root: dict = {}
        self._size = 0

    def _node(self, prefix: str) -> dict | None:
        node = self._root
        for ch in prefix:
            node = node.get(ch)
            if node is None:
                return None
        return node

    def insert(self, word: str) -> bool:
        node = self._root
        for ch in word:
            node = node.setdefault(ch, {})
        if self._END in node:
            return False
        node[self._END] = True
        self._size += 1
        return True

    def remove(self, word: str) -> bool:
        path = [self._root]
        for ch in word:
            child = path[-1].get(ch)
            if child is None:
                return False
            path.append(child)
        if self._END not in path[-1]:
            return False
        del path[-1][self._END]
        self._size -= 1
        for depth in range(len(word), 0, -1):
            if path[depth]:
                break
            del path[depth - 1][word[depth - 1]]
        return True

    def __contains__(self, word) -> bool:
        node = self._node(word)
        return node is not None and self._END in node

    def __len__(self) -> int:
        return self._size

    def has_prefix(self, prefix: str) -> bool:
        node = self._node(prefix)
        return bool(node)

    def words_with_prefix(self, prefix: str) -> list[str]:
        node = self._node(prefix)
        if node is None:
            return []
        found: list[str] = []
        stack = [(node, prefix)]
        while stack:
            current, text = stack.pop()
            for key, child in current.items():
                if key is self._END:
                    found.append(text)
                else:
                    stack.append((child, text + key))
        found.sort()
        return found
