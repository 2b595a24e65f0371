"""`--backend http://host:port`: a running `codegym serve` judges everything (verdict, timing, reward)
on its side. Retries with backoff on connection errors and 5xx; when they run out, every program of
the batch is a `sandbox_error` (reward None, never 0). A 4xx is our input's fault: raised with the
service's message."""

from __future__ import annotations

import json
import os
import time
import urllib.error
import urllib.request
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from codegym.errors import CodegymError
from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.config import COMPONENTS, RewardConfig
from codegym.reward.scoring import RewardJudge, ScoredSample
from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.types import ExecRequest, ExecResult
from codegym.tasks.model import Task

CHUNK = 64  # programs per HTTP request: small enough to retry cheaply, big enough to amortise


class ServiceInputError(CodegymError, ValueError):
    """The service refused the request (4xx); the message is the service's."""


class HttpBackend(SandboxBackend):
    name = "http"

    def __init__(
        self,
        url: str,
        *,
        token_env: str = "CODEGYM_SERVE_TOKEN",
        token: str | None = None,
        retries: int = 5,
        timeout_s: float = 600.0,
        chunk: int = CHUNK,
        **_ignored: Any,  # workers/preload: the service sizes its own sandboxes
    ) -> None:
        self.url = url.rstrip("/")
        self.token = token if token is not None else os.environ.get(token_env) or None
        self.retries = retries
        self.timeout_s = timeout_s
        self.chunk = max(1, chunk)
        self.workers = 8  # callers size their chunks by it; the service bounds the real work

    # -- transport ---------------------------------------------------------------------------
    def post(self, items: list[dict[str, Any]], reward: bool) -> list[dict[str, Any]] | str:
        """The service's results, or (after every retry failed) why not, as a string."""
        body = json.dumps({"items": items, "reward": reward}).encode()
        headers = {"Content-Type": "application/json"}
        if self.token:
            headers["Authorization"] = f"Bearer {self.token}"
        problem = ""
        for attempt in range(self.retries + 1):
            if attempt:
                time.sleep(min(10.0, 0.5 * 2 ** (attempt - 1)))
            request = urllib.request.Request(f"{self.url}/v1/judge", body, headers, method="POST")
            try:
                with urllib.request.urlopen(request, timeout=self.timeout_s) as response:
                    return json.loads(response.read())["results"]
            except urllib.error.HTTPError as exc:
                text = exc.read().decode("utf-8", "replace")
                if exc.code < 500:
                    try:
                        message = json.loads(text).get("error", text)
                    except (json.JSONDecodeError, AttributeError):
                        message = text
                    raise ServiceInputError(f"judge service {self.url}: HTTP {exc.code}: {message}") from exc
                problem = f"HTTP {exc.code}: {text[:200]}"
            except (OSError, json.JSONDecodeError, KeyError) as exc:
                problem = f"{type(exc).__name__}: {exc}"
        return f"judge service {self.url} failed after {self.retries + 1} attempts: {problem}"

    # -- SandboxBackend ----------------------------------------------------------------------
    def execute_many(
        self,
        requests: Iterable[ExecRequest],
        *,
        on_result: Callable[[int, ExecResult], None] | None = None,
        max_concurrency: int | None = None,
    ) -> list[ExecResult]:
        items = list(requests)
        out: list[ExecResult] = []
        for start in range(0, len(items), self.chunk):
            chunk = items[start : start + self.chunk]
            answer = self.post([{"request": r.to_wire()} for r in chunk], reward=False)
            if isinstance(answer, str):
                results = [ExecResult.sandbox_error(answer, backend=self.name) for _ in chunk]
            else:
                results = [ExecResult.from_dict(row["result"]) for row in answer]
            for offset, result in enumerate(results):
                if on_result is not None:
                    on_result(start + offset, result)
            out.extend(results)
        return out

    def reward_judge(self, config: Any = None, cache: Any = None, yardsticks: Any = None) -> RewardJudge:
        return HttpRewardJudge(self, config)

    @property
    def image(self) -> str:
        return f"service:{self.url}"

    def info(self) -> dict[str, Any]:
        return {"backend": self.name, "url": self.url, "authenticated": bool(self.token)}

    def close(self) -> None:
        pass


class HttpRewardJudge(RewardJudge):
    """Scores through the service: its reward config, cache and yardsticks decide (a local cache would
    only hide the service's)."""

    def __init__(self, backend: HttpBackend, config: RewardConfig | None = None) -> None:
        super().__init__(backend, config, None, None)
        self.http = backend

    def _score_many(self, items: Sequence[tuple[Task, str, int | None]]) -> list[ScoredSample]:
        out: list[ScoredSample] = []
        for start in range(0, len(items), self.http.chunk):
            chunk = items[start : start + self.http.chunk]
            payload = [
                {"task": {"pack": task.pack, "task_id": task.task_id}, "solution": code}
                for task, code, _ in chunk
            ]
            answer = self.http.post(payload, reward=True)
            for index in range(len(chunk)):
                if isinstance(answer, str):
                    breakdown = RewardBreakdown(
                        total=None,
                        components=dict.fromkeys(COMPONENTS),
                        status="sandbox_error",
                        details={"message": answer},
                    )
                    scored = ScoredSample(breakdown, ExecResult.sandbox_error(answer, backend="http"))
                else:
                    row = answer[index]
                    breakdown = RewardBreakdown.from_dict(row["breakdown"], cached=bool(row.get("cached")))
                    result = ExecResult.from_dict(row["result"]) if row.get("result") else None
                    scored = ScoredSample(breakdown, result)
                self._count(scored.breakdown)
                out.append(scored)
        return out

    def prepare(self, tasks: Sequence[Task]) -> None:
        """The service judges references on its own nodes."""
