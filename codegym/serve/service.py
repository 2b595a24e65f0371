"""The judge service on Ray Serve: replicas, each with its own warm local sandbox and reward judge, and
the shared parts — the reward cache (Redis, shared by every replica and client) and the metrics actor.

    GET  /healthz   alive          GET /readyz   the replica's sandbox is up
    GET  /metrics   Prometheus     POST /v1/judge   see api.py (bearer token unless on loopback)
"""

import asyncio
import hmac
import os
import threading
import time
import uuid
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import JSONResponse, Response
from ray import serve

from codegym.serve.api import BadInput, RequestItem, TaskItem, parse_body, parse_item
from codegym.serve.metrics import METRICS_ACTOR


def _pack_fields(item: TaskItem) -> dict[str, Any]:
    return {
        "pack": item.pack.name,
        "pack_version": item.pack.version,
        "pack_hash": item.pack.content_hash[:16],
    }


def _replica_id() -> str:
    try:
        return serve.get_replica_context().replica_id.unique_id
    except Exception:  # outside a replica (tests of the class itself)
        return f"{os.getpid()}-{uuid.uuid4().hex[:6]}"


app = FastAPI(title="codegym judge")
HEARTBEAT_S = 5.0


@serve.deployment(name="judge", max_ongoing_requests=8, graceful_shutdown_timeout_s=5)
@serve.ingress(app)
class JudgeService:
    def __init__(self, settings: dict[str, Any]) -> None:
        import ray

        from codegym.reward.config import RewardConfig
        from codegym.reward.session import JudgeSession, JudgingOptions
        from codegym.tasks.registry import TaskRegistry

        self.settings = settings
        self.token: str | None = settings.get("token")
        config = (
            RewardConfig.from_yaml(settings["reward_config"])
            if settings.get("reward_config")
            else RewardConfig()
        )
        # the same judging setup as every command, held for the replica's life (closed in __del__);
        # reference measurements are kept per replica
        options = JudgingOptions(
            backend="local",
            workers=settings.get("workers") or 0,
            reward=config,
            cache=settings.get("cache", "default"),
            yardsticks="memory",
        )
        self.session = JudgeSession(options).__enter__()
        self.backend = self.session.backend
        self.backend.start()
        self.judge = self.session.judge
        self.registry = TaskRegistry(list(settings.get("tasks_dirs") or []))
        self.packs: dict[str, Any] = {}
        self.metrics = ray.get_actor(METRICS_ACTOR, namespace=settings["namespace"])
        self.replica = _replica_id()
        self.inflight = 0
        self._lock = threading.Lock()
        self._closed = threading.Event()
        threading.Thread(target=self._heartbeat, daemon=True).start()

    def _heartbeat(self) -> None:
        while not self._closed.wait(HEARTBEAT_S):
            self.metrics.report.remote(self.replica, self.inflight)

    def __del__(self) -> None:
        self._closed.set()
        self.session.__exit__(None, None, None)

    # -- endpoints ---------------------------------------------------------------------------
    @app.get("/healthz")
    def healthz(self) -> dict[str, Any]:
        return {"ok": True, "replica": self.replica}

    @app.get("/readyz")
    def readyz(self) -> JSONResponse:
        ready = bool(self.backend.pool.describe())
        return JSONResponse({"ready": ready, "replica": self.replica}, status_code=200 if ready else 503)

    @app.get("/metrics")
    async def metrics(self) -> Response:
        body = await self.metrics.render.remote()
        return Response(body, media_type="text/plain; version=0.0.4")

    @app.post("/v1/judge")
    async def judge_batch(self, request: Request) -> JSONResponse:
        started = time.monotonic()
        programs, outcome = 0, {}
        try:
            self._authenticate(request)
            body = await self._body(request)
            raw_items, with_reward = parse_body(body, self.settings["max_items"])
            items = [parse_item(i, raw, self.registry, self.packs) for i, raw in enumerate(raw_items)]
            programs = len(items)
            self._queue(programs)
            try:
                results, outcome = await asyncio.to_thread(self._judge, items, with_reward)
            finally:
                self._queue(-programs)
            status, payload = 200, {"results": results, "replica": self.replica}
        except BadInput as exc:
            status, payload, programs = exc.status, {"error": exc.message}, 0
        outcome.update(code=status, latency_s=time.monotonic() - started, programs=programs)
        self.metrics.report.remote(self.replica, self.inflight, outcome)
        headers = {"WWW-Authenticate": "Bearer"} if status == 401 else None
        return JSONResponse(payload, status_code=status, headers=headers)

    # -- parts -------------------------------------------------------------------------------
    def _authenticate(self, request: Request) -> None:
        if self.token is None:
            return
        header = request.headers.get("authorization", "")
        scheme, _, given = header.partition(" ")
        if scheme.lower() != "bearer" or not given:
            raise BadInput(401, "missing bearer token: send 'Authorization: Bearer <token>'")
        if not hmac.compare_digest(given.strip().encode(), self.token.encode()):
            raise BadInput(403, "invalid bearer token")

    async def _body(self, request: Request) -> bytes:
        limit = self.settings["max_body_bytes"]
        declared = request.headers.get("content-length")
        if declared is not None and declared.isdigit() and int(declared) > limit:
            raise BadInput(413, f"request body of {declared} bytes; the limit is {limit}")
        body = await request.body()
        if len(body) > limit:
            raise BadInput(413, f"request body of {len(body)} bytes; the limit is {limit}")
        return body

    def _queue(self, delta: int) -> None:
        with self._lock:
            self.inflight += delta
        self.metrics.report.remote(self.replica, self.inflight)

    def _judge(self, items: list[TaskItem | RequestItem], with_reward: bool) -> tuple[list[dict], dict]:
        from codegym.eval.judge import result_fields, reward_fields
        from codegym.sandbox.requests import request_for_task

        results: list[dict | None] = [None] * len(items)
        tasks = [(i, it) for i, it in enumerate(items) if isinstance(it, TaskItem)]
        plain = [(i, it.request) for i, it in enumerate(items) if isinstance(it, RequestItem)]
        if not with_reward:
            plain += [(i, request_for_task(it.task, it.code)) for i, it in tasks]
            tasks = []
        sandbox_errors = hacks = hits = 0
        if tasks:
            scored = self.judge.score_many([(it.task, it.code, None) for _, it in tasks])
            for (i, it), sample in zip(tasks, scored, strict=True):
                results[i] = {
                    **it.fields,
                    **_pack_fields(it),
                    **reward_fields(sample),
                    "breakdown": sample.breakdown.to_dict(),
                    "result": sample.result.to_dict() if sample.result is not None else None,
                }
                sandbox_errors += sample.breakdown.total is None
                hacks += bool(sample.breakdown.flags)
                hits += sample.breakdown.cached
        if plain:
            for (i, _request), result in zip(
                plain, self.backend.execute_many([r for _, r in plain]), strict=True
            ):
                item = items[i]
                extra = (
                    {**item.fields, **_pack_fields(item), **result_fields(result)}
                    if isinstance(item, TaskItem)
                    else {}
                )
                results[i] = {**extra, "result": result.to_dict()}
                sandbox_errors += result.status.is_infrastructure_failure
        outcome = {
            "sandbox_errors": sandbox_errors,
            "hacks": hacks,
            "cache_hits": hits,
            "cache_lookups": len(tasks) if self.session.cache is not None else 0,
        }
        return [r for r in results if r is not None], outcome
