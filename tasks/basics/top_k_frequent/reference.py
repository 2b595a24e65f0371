import heapq
from collections import Counter


def top_k_frequent(words: list[str], k: int) -> list[str]:
    """Return the k most frequent words; ties are broken alphabetically."""
    if k < 0:
        raise ValueError("k must be non-negative")
    counts = Counter(words)
    best = heapq.nsmallest(k, counts.items(), key=lambda item: (-item[1], item[0]))
    return [word for word, _ in best]
