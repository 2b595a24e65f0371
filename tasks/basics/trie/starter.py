class Trie:
    """A set of strings stored as a prefix tree."""
