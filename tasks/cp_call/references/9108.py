from collections import deque
from typing import List


class Solution:
    def canFinish(self, numCourses: int, prerequisites: List[List[int]]) -> bool:
        needs = [0] * numCourses
        unlocks: List[List[int]] = [[] for _ in range(numCourses)]
        for course, before in prerequisites:
            needs[course] += 1
            unlocks[before].append(course)
        ready = deque(c for c in range(numCourses) if needs[c] == 0)
        taken = 0
        while ready:
            course = ready.popleft()
            taken += 1
            for nxt in unlocks[course]:
                needs[nxt] -= 1
                if needs[nxt] == 0:
                    ready.append(nxt)
        return taken == numCourses
