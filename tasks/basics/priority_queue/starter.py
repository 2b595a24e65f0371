import heapq
import itertools


class PriorityQueue:
    """Min-priority queue of unique items supporting update and removal."""
