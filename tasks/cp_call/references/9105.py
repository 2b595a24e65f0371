class Solution:
    def lengthOfLongestSubstring(self, s: str) -> int:
        last: dict = {}
        start = best = 0
        for index, char in enumerate(s):
            if last.get(char, -1) >= start:
                start = last[char] + 1
            last[char] = index
            best = max(best, index - start + 1)
        return best
