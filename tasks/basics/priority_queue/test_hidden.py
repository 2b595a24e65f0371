import random

import pytest

from solution import PriorityQueue


def test_pops_in_priority_order():
    pq = PriorityQueue()
    for item, priority in [("d", 4), ("a", 1), ("c", 3), ("b", 2)]:
        pq.push(item, priority)
    assert [pq.pop() for _ in range(4)] == [("a", 1), ("b", 2), ("c", 3), ("d", 4)]


def test_fifo_ties_and_update_resets_tie_order():
    pq = PriorityQueue()
    pq.push("first", 1)
    pq.push("second", 1)
    pq.push("third", 1)
    pq.update("first", 1)
    assert [pq.pop()[0] for _ in range(3)] == ["second", "third", "first"]


def test_peek_does_not_remove():
    pq = PriorityQueue()
    pq.push("x", 2.5)
    pq.push("y", -1)
    assert pq.peek() == ("y", -1)
    assert len(pq) == 2
    assert pq.pop() == ("y", -1)
    assert pq.peek() == ("x", 2.5)


def test_remove_and_contains():
    pq = PriorityQueue()
    pq.push("a", 1)
    pq.push("b", 2)
    pq.remove("a")
    assert "a" not in pq
    assert len(pq) == 1
    assert pq.peek() == ("b", 2)
    pq.push("a", 0)
    assert pq.pop() == ("a", 0)


def test_empty_errors_and_bool():
    pq = PriorityQueue()
    assert not pq
    with pytest.raises(IndexError):
        pq.pop()
    with pytest.raises(IndexError):
        pq.peek()
    pq.push(1, 1)
    assert pq
    pq.remove(1)
    assert not pq
    with pytest.raises(IndexError):
        pq.pop()


def test_key_errors():
    pq = PriorityQueue()
    pq.push("a", 1)
    with pytest.raises(KeyError):
        pq.push("a", 2)
    with pytest.raises(KeyError):
        pq.update("missing", 3)
    with pytest.raises(KeyError):
        pq.remove("missing")
    assert pq.pop() == ("a", 1)


def test_update_decrease_and_increase():
    pq = PriorityQueue()
    for i in range(10):
        pq.push(i, i)
    pq.update(9, -1)
    pq.update(0, 100)
    assert pq.pop() == (9, -1)
    assert [pq.pop()[0] for _ in range(8)] == [1, 2, 3, 4, 5, 6, 7, 8]
    assert pq.pop() == (0, 100)


def test_unorderable_items_are_fine():
    pq = PriorityQueue()
    pq.push(("t", 1), 3)
    pq.push(frozenset({1}), 3)
    pq.push(None, 3)
    assert [pq.pop()[0] for _ in range(3)] == [("t", 1), frozenset({1}), None]


def test_randomised_against_sorting():
    rng = random.Random(1234)
    pq = PriorityQueue()
    expected = {}
    for step in range(20000):
        item = rng.randrange(500)
        priority = rng.randrange(1000)
        if item in expected:
            if step % 2:
                pq.update(item, priority)
                expected[item] = priority
            else:
                pq.remove(item)
                del expected[item]
        else:
            pq.push(item, priority)
            expected[item] = priority
    assert len(pq) == len(expected)
    popped = [pq.pop() for _ in range(len(expected))]
    assert sorted(popped, key=lambda pair: pair[1]) == popped
    assert dict(popped) == expected
