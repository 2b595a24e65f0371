import heapq
from collections import Counter


def top_k_frequent(words: list[str], k: int) -> list[str]:
    """Return the k most frequent words; ties are broken alphabetically."""
