from solution import PriorityQueue


def test_pop_order_with_update():
    pq = PriorityQueue()
    pq.push("a", 5)
    pq.push("b", 1)
    pq.push("c", 5)
    pq.update("b", 9)
    assert [pq.pop(), pq.pop(), pq.pop()] == [("a", 5), ("c", 5), ("b", 9)]


def test_len_and_contains():
    pq = PriorityQueue()
    pq.push("x", 1)
    assert len(pq) == 1
    assert "x" in pq
