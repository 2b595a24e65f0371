from typing import List


class Solution:
    def spiralOrder(self, matrix: List[List[int]]) -> List[int]:
        rows = [list(row) for row in matrix]
        order: List[int] = []
        while rows:
            order.extend(rows.pop(0))
            rows = [list(column) for column in zip(*rows)][::-1]
        return order
