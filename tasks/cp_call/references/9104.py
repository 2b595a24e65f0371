from typing import List


class Solution:
    def componentSizes(self, n: int, edges: List[List[int]]) -> List[int]:
        parent = list(range(n))

        def find(x: int) -> int:
            while parent[x] != x:
                parent[x] = parent[parent[x]]
                x = parent[x]
            return x

        for a, b in edges:
            parent[find(a)] = find(b)
        sizes: dict = {}
        for node in range(n):
            root = find(node)
            sizes[root] = sizes.get(root, 0) + 1
        return sorted(sizes.values())
