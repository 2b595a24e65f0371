"""The `ray` backend on a real local multi-node Ray cluster (three raylets on loopback, one CPU each):
the verdict agreement set gives the same verdicts as on the local backend, work spreads over every
node, task parts travel once per actor, in-flight work stays bounded, results come in request order,
and removing a node in the middle of a 600-program batch still returns every row once, in order,
with correct verdicts."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator

import pytest

from codegym.reward.cache import MemoryCache
from codegym.reward.config import RewardConfig
from codegym.reward.judges import judge_for
from codegym.reward.scoring import RewardJudge
from codegym.sandbox.backend import SandboxUnavailable, create_backend
from codegym.sandbox.ray.backend import RayBackend
from codegym.sandbox.types import ExecRequest, ExecStatus
from tests.sandbox.agreement import PACK, check_agreement
from tests.sandbox.ray_support import local_cluster


def tiny(index: int) -> ExecRequest:
    """A very small program whose verdict depends on its index: multiples of 3 fail, the rest pass.
    Ten distinct task parts (the tests differ by index % 10), so parts are shared across requests."""
    answer = index % 10 if index % 3 else -1
    return ExecRequest(
        files={"solution.py": f"def f():\n    return {answer}\n"},
        tests={"test_f.py": f"from solution import f\n\ndef test_f():\n    assert f() == {index % 10}\n"},
        request_id=f"r{index}",
    )


def expected(index: int) -> ExecStatus:
    return ExecStatus.FAILED if index % 3 == 0 else ExecStatus.PASSED


@pytest.fixture(scope="module")
def cluster() -> Iterator[object]:
    with local_cluster(nodes=3, cpus_per_node=1) as running:
        yield running


@pytest.fixture(scope="module")
def ray_backend(cluster) -> Iterator[RayBackend]:
    backend = create_backend("ray", address="auto", workers=2)
    assert isinstance(backend, RayBackend)
    with backend:
        backend.start()
        yield backend


def test_one_actor_per_node_and_the_same_verdicts_as_the_local_backend(ray_backend, cluster) -> None:
    actors = ray_backend.info()["actors"]
    assert len({a["node_id"] for a in actors}) == 3 == len(actors)
    check_agreement(ray_backend)
    stats = ray_backend.actor_stats()
    assert all(s["executions"] > 100 for s in stats), stats  # every node judged its share
    # a task part travels to an actor once, not once per request (961 requests over 164 tasks)
    assert all(s["blobs_received"] <= len(PACK.tasks) for s in stats), stats


def test_results_in_request_order_with_the_same_fields(ray_backend, local_backend) -> None:
    requests = [tiny(i) for i in range(60)]
    seen: list[int] = []
    results = ray_backend.execute_many(requests, on_result=lambda i, r: seen.append(i))
    assert [r.status for r in results] == [expected(i) for i in range(60)]
    assert sorted(seen) == list(range(60))
    local = local_backend.execute_many(requests[:6])
    for mine, theirs in zip(results[:6], local, strict=True):
        assert (mine.status, mine.tests_total, mine.tests_passed) == (theirs.status, 1, theirs.tests_passed)
        assert mine.backend == "ray" and mine.image == theirs.image


def test_in_flight_work_is_bounded_per_actor(ray_backend) -> None:
    dispatcher = ray_backend._dispatcher
    peaks: list[int] = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            peaks.extend(slot.inflight - slot.capacity for slot in dispatcher.live_actors())
            time.sleep(0.002)

    watcher = threading.Thread(target=watch)
    watcher.start()
    try:
        results = ray_backend.execute_many([tiny(i) for i in range(150)])
    finally:
        stop.set()
        watcher.join()
    assert len(results) == 150
    assert peaks and max(peaks) <= 0  # never more than `capacity` unanswered requests per actor


def test_reward_is_judged_on_the_actors_and_matches_the_local_judge(ray_backend, local_backend) -> None:
    config = RewardConfig()
    cache = MemoryCache()
    judge = judge_for(ray_backend, config, cache)
    assert type(judge).__name__ == "RayRewardJudge"
    tasks = [PACK.get(f"HumanEval/{n}") for n in (0, 2, 4)]
    items = [(t, t.reference_solution, None) for t in tasks] + [
        (tasks[0], tasks[0].prefix + "    return 1\n", None)
    ]
    remote = judge.score_many(items)
    with create_backend("local", workers=2, coverage=True) as local_sandbox:
        local = RewardJudge(local_sandbox, config).score_many(items)
    for mine, theirs in zip(remote, local, strict=True):
        assert mine.breakdown.status == theirs.breakdown.status
        assert mine.breakdown.passed == theirs.breakdown.passed
        assert mine.breakdown.components["tests"] == theirs.breakdown.components["tests"]
        assert mine.breakdown.components["style"] == theirs.breakdown.components["style"]
        assert mine.breakdown.total is not None
    assert [s.breakdown.passed for s in remote] == [True, True, True, False]
    # stored in the driver's cache: the same batch again is all hits
    again = judge.score_many(items)
    assert all(s.breakdown.cached for s in again)
    assert [s.breakdown.total for s in again] == [s.breakdown.total for s in remote]


def test_no_matching_node_is_a_clear_error(cluster) -> None:
    with pytest.raises(SandboxUnavailable, match=r"labels \{'role': 'judge'\}"):
        RayBackend(address="auto", node_labels={"role": "judge"}, workers=1).start()


def test_bad_settings_name_the_field() -> None:
    with pytest.raises(ValueError, match=r"sandbox\.actors_per_node"):
        RayBackend(actors_per_node=0)
    with pytest.raises(ValueError, match=r"sandbox\.inner_backend"):
        RayBackend(inner_backend="podman")


def test_removing_a_node_mid_batch_loses_and_duplicates_nothing(ray_backend, cluster) -> None:
    """Last in this module: it takes a node away from the shared cluster."""
    count = 600
    done: list[int] = []
    removed = threading.Event()

    def on_result(index: int, _result: object) -> None:
        done.append(index)
        if len(done) == 120 and not removed.is_set():
            removed.set()
            threading.Thread(target=lambda: cluster.remove_node(next(iter(cluster.worker_nodes)))).start()

    results = ray_backend.execute_many([tiny(i) for i in range(count)], on_result=on_result)
    assert removed.is_set()
    assert len(results) == count
    assert sorted(done) == list(range(count))  # every row once
    assert [r.status for r in results] == [expected(i) for i in range(count)]  # in order, correct
    info = ray_backend.info()
    assert info["actor_deaths"] >= 1 and info["retries"] >= 1
    assert len(info["actors"]) == 2  # the two nodes left keep serving
