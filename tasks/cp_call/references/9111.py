from collections import Counter
from typing import List


class Solution:
    def topTwo(self, words: List[str]) -> List[str]:
        counts = Counter(words)
        return sorted(counts, key=lambda word: (-counts[word], word))[:2]
