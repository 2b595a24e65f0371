"""`codegym serve` over HTTP on 127.0.0.1: a real Ray Serve deployment with two replicas sharing a real
Redis reward cache; the remote-judge client; malformed requests; a replica killed mid-load; metrics."""

from __future__ import annotations

import json
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Iterator

import pytest

from codegym.sandbox.backend import create_backend
from codegym.serve.client import HttpBackend, ServiceInputError
from codegym.serve.config import ServeConfig
from codegym.tasks.humaneval import load_humaneval_pack
from tests.reward.conftest import _free_port, redis_url  # noqa: F401 - the real Redis fixture

TOKEN = "test-token-123"
PACK = load_humaneval_pack()


@pytest.fixture(scope="module")
def service(redis_url, tmp_path_factory) -> Iterator[str]:  # noqa: F811
    import ray

    from codegym.sandbox.ray.cluster import quiet_environment
    from codegym.serve.launch import start_service, stop_service

    quiet_environment()
    token_file = tmp_path_factory.mktemp("serve") / "token"
    token_file.write_text(TOKEN)
    config = ServeConfig(
        port=_free_port(),
        min_replicas=2,
        max_replicas=2,
        workers_per_replica=1,
        num_cpus_per_replica=0.5,
        cache=redis_url,
        token_file=str(token_file),
        max_body_bytes=64 * 1024,
    )
    try:
        yield start_service(config)
    finally:
        stop_service()
        ray.shutdown()


def post(url: str, body: bytes, token: str | None = TOKEN) -> tuple[int, dict]:
    headers = {"Content-Type": "application/json"}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    request = urllib.request.Request(f"{url}/v1/judge", body, headers, method="POST")
    try:
        with urllib.request.urlopen(request, timeout=120) as response:
            return response.status, json.loads(response.read())
    except urllib.error.HTTPError as exc:
        return exc.code, json.loads(exc.read())


def item(task_id: str, code: str | None = None) -> dict:
    task = PACK.get(task_id)
    return {"task": {"pack": "humaneval", "task_id": task_id}, "solution": code or task.reference_solution}


def test_a_client_batch_gets_verdicts_and_rewards(service) -> None:
    with create_backend(service, token=TOKEN) as backend:
        assert isinstance(backend, HttpBackend)
        judge = backend.reward_judge()
        tasks = [PACK.get(f"HumanEval/{n}") for n in (1, 3, 5)]
        items = [(t, t.reference_solution, None) for t in tasks] + [
            (tasks[0], tasks[0].prefix + "    return []\n", None)
        ]
        scored = judge.score_many(items)
        assert [s.breakdown.passed for s in scored] == [True, True, True, False]
        assert all(s.breakdown.total is not None for s in scored)
        results = backend.execute_many([_request(t) for t in tasks])
        assert [r.passed for r in results] == [True, True, True]


def _request(task):
    from codegym.sandbox.requests import request_for_task

    return request_for_task(task, task.reference_solution)


def test_malformed_requests_get_a_clear_4xx_and_the_service_keeps_serving(service) -> None:
    assert post(service, b"{not json")[0] == 400
    status, body = post(
        service, json.dumps({"items": [{"task": {"pack": "nope", "task_id": "x"}, "solution": ""}]}).encode()
    )
    assert status == 404 and "unknown task pack 'nope'" in body["error"]
    status, body = post(
        service, json.dumps({"items": [item("HumanEval/0")] * 40, "padding": "x" * 70000}).encode()
    )
    assert status == 413 and "limit" in body["error"]
    status, body = post(service, json.dumps({"items": [item("HumanEval/0")]}).encode(), token=None)
    assert status == 401 and "bearer token" in body["error"]
    assert post(service, json.dumps({"items": [item("HumanEval/0")]}).encode(), token="wrong")[0] == 403
    status, body = post(
        service, json.dumps({"items": [{"task": {"pack": "humaneval", "task_id": "HumanEval/0"}}]}).encode()
    )
    assert status == 400 and 'items[0]: give exactly one of "completion" or "solution"' in body["error"]
    with pytest.raises(ServiceInputError, match="HTTP 401"):
        HttpBackend(service, token="").post([item("HumanEval/0")], reward=True)
    status, body = post(service, json.dumps({"items": [item("HumanEval/0")]}).encode())
    assert status == 200 and body["results"][0]["passed"] is True


def test_two_replicas_share_hits_through_redis(service) -> None:
    code = PACK.get("HumanEval/7").reference_solution + "\n# shared-cache probe\n"
    body = json.dumps({"items": [item("HumanEval/7", code)]}).encode()
    first = post(service, body)[1]
    assert first["results"][0]["cached"] is False
    seen = {}
    for _ in range(30):
        answer = post(service, body)[1]
        seen.setdefault(answer["replica"], answer["results"][0]["cached"])
        if len(seen) == 2:
            break
    assert len(seen) == 2 and all(seen.values())  # both replicas hit what one of them stored


def test_metrics_are_scraped(service) -> None:
    time.sleep(6)  # a heartbeat from each replica
    with urllib.request.urlopen(f"{service}/metrics", timeout=30) as response:
        text = response.read().decode()
    values = {
        line.split(" ")[0]: float(line.split(" ")[1])
        for line in text.splitlines()
        if line and not line.startswith("#")
    }
    assert values['codegym_requests_total{code="200"}'] >= 1
    assert values['codegym_requests_total{code="400"}'] >= 1
    assert values["codegym_programs_judged_total"] >= 4
    assert values["codegym_cache_hits_total"] >= 1 and values["codegym_cache_hit_rate"] > 0
    assert values["codegym_replicas"] == 2
    for name in (
        "codegym_queue_depth",
        "codegym_sandbox_errors_total",
        "codegym_hack_rate",
        "codegym_programs_per_second",
    ):
        assert name in values
    assert values["codegym_request_latency_seconds_count"] >= 1


def test_a_replica_killed_mid_load_is_replaced_and_retries_complete(service) -> None:
    import ray

    backend = HttpBackend(service, token=TOKEN, retries=8, chunk=6)
    tasks = [PACK.get(f"HumanEval/{n}") for n in range(20, 60)]
    outcome: dict = {}

    def load() -> None:
        outcome["results"] = backend.execute_many([_request(t) for t in tasks * 3])

    thread = threading.Thread(target=load)
    thread.start()
    time.sleep(1.0)
    replicas = [a for a in ray.util.list_named_actors(all_namespaces=True) if "SERVE_REPLICA" in a["name"]]
    assert len(replicas) == 2
    ray.kill(ray.get_actor(replicas[0]["name"], namespace=replicas[0]["namespace"]), no_restart=True)
    thread.join(timeout=300)
    assert [r.passed for r in outcome["results"]] == [True] * 120
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        names = {
            a["name"] for a in ray.util.list_named_actors(all_namespaces=True) if "SERVE_REPLICA" in a["name"]
        }
        if len(names) == 2 and replicas[0]["name"] not in names:
            break
        time.sleep(1)
    else:
        pytest.fail("the killed replica was not replaced")
    assert post(service, json.dumps({"items": [item("HumanEval/0")]}).encode())[0] == 200


def test_serve_refuses_a_public_bind_without_a_token(monkeypatch) -> None:
    monkeypatch.delenv("CODEGYM_SERVE_TOKEN", raising=False)
    with pytest.raises(ValueError, match="needs a bearer token"):
        ServeConfig(host="0.0.0.0")


@pytest.mark.slow
def test_the_judge_cli_runs_on_the_service_and_on_ray(service, tmp_path) -> None:
    """`codegym judge --backend http://...` and `--backend ray`, as users run them (fresh processes)."""
    import os
    import subprocess
    import sys

    from tests.conftest import REPO_ROOT

    samples = tmp_path / "s.jsonl"
    rows = [item("HumanEval/0"), item("HumanEval/2", "def truncate_number(number):\n    return 0.0\n")]
    samples.write_text(
        "".join(json.dumps({"task_id": r["task"]["task_id"], "solution": r["solution"]}) + "\n" for r in rows)
    )
    env = {**os.environ, "CODEGYM_SERVE_TOKEN": TOKEN}
    for backend_name in (service, "ray"):
        out = tmp_path / f"out-{backend_name.split(':')[0]}.jsonl"
        argv = [sys.executable, "-m", "codegym.cli.app", "judge", str(samples), "--pack", "humaneval"]
        argv += ["--backend", backend_name, "--out", str(out), "--cache", "off"]
        done = subprocess.run(argv, capture_output=True, text=True, timeout=300, cwd=REPO_ROOT, env=env)
        assert done.returncode == 0, (backend_name, done.stdout[-1500:], done.stderr[-1500:])
        judged = [json.loads(line) for line in out.read_text().splitlines()]
        assert [r["passed"] for r in judged] == [True, False], backend_name
        assert isinstance(judged[0]["reward"], float) and judged[1]["status"] == "failed"
