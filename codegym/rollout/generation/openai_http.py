"""Generation from any OpenAI-compatible HTTP endpoint (OpenAI, vLLM's server, TGI, llama.cpp, ...).

Completion prompts go to `{api_base}/completions`, chat prompts to `{api_base}/chat/completions`
(`api_base` as the OpenAI client takes it, e.g. http://localhost:8000/v1). One request per sample,
at most `concurrency` in flight. 429, 5xx, timeouts and connection errors are retried with
exponential backoff and jitter (honouring Retry-After); a sample that still fails comes back as a
`Completion` with `error` set, never as an exception. A rejected key (401/403) or an unknown
endpoint/model (404) is a setup error and stops the call.

The API key arrives in `OpenAISettings`; this module never reads the environment.
"""

from __future__ import annotations

import http.client
import json
import random
import threading
import urllib.error
import urllib.parse
import urllib.request
from collections.abc import Callable, Sequence
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import Any

from codegym.rollout.generation.base import (
    Completion,
    GenerationSetupError,
    Generator,
    SamplingParams,
    apply_stop,
    check_prompts,
    derive_seed,
)
from codegym.rollout.prompts import Prompt

RETRY_STATUSES = frozenset({408, 409, 425, 429, 500, 502, 503, 504})
FATAL_STATUSES = frozenset({401, 403, 404})
MAX_API_STOPS = 4  # OpenAI accepts at most four; the rest are applied after the fact


@dataclass(frozen=True)
class OpenAISettings:
    api_base: str = field(metadata={"help": "Base URL, e.g. http://localhost:8000/v1."})
    model: str = field(metadata={"help": "Model name the endpoint serves."})
    api_key: str | None = field(
        default=None, repr=False, metadata={"help": "Bearer token (None: none sent)."}
    )
    concurrency: int = field(default=8, metadata={"help": "Requests in flight at most."})
    max_retries: int = field(default=5, metadata={"help": "Retries per sample after the first attempt."})
    timeout_s: float = field(default=120.0, metadata={"help": "Per-request timeout."})
    backoff_initial_s: float = field(
        default=1.0, metadata={"help": "First retry delay (doubles each retry)."}
    )
    backoff_max_s: float = field(default=60.0, metadata={"help": "Longest delay between retries."})

    def __post_init__(self) -> None:
        if not self.api_base.startswith(("http://", "https://")):
            raise ValueError(f"api_base must be an http(s) URL, got {self.api_base!r}")
        if self.concurrency < 1:
            raise ValueError(f"concurrency must be >= 1, got {self.concurrency}")
        if self.max_retries < 0:
            raise ValueError(f"max_retries must be >= 0, got {self.max_retries}")
        if self.timeout_s <= 0 or self.backoff_initial_s < 0 or self.backoff_max_s < 0:
            raise ValueError("timeout_s must be > 0 and backoff delays >= 0")


class _Retryable(Exception):
    def __init__(self, message: str, retry_after: float | None = None) -> None:
        super().__init__(message)
        self.retry_after = retry_after


class _Failed(Exception):
    """Not worth retrying (e.g. 400: the prompt is too long); the sample fails with this message."""


@dataclass
class RequestStats:
    requests: int = 0
    retries: int = 0
    failed: int = 0

    def as_dict(self) -> dict[str, int]:
        return {"requests": self.requests, "retries": self.retries, "failed": self.failed}


class OpenAIGenerator(Generator):
    name = "openai"
    default_style = "chat"

    def __init__(
        self,
        settings: OpenAISettings,
        *,
        sleep: Callable[[float], None] | None = None,
        rng: random.Random | None = None,
    ) -> None:
        self.settings = settings
        self._sleep = sleep
        self._rng = rng or random.Random()
        self._lock = threading.Lock()
        self.stats = RequestStats()
        host = (urllib.parse.urlsplit(settings.api_base).hostname or "").lower()
        # a loopback endpoint never goes through a proxy from the environment's *_proxy settings
        handlers = [urllib.request.ProxyHandler({})] if host in ("localhost", "127.0.0.1", "::1") else []
        self._opener = urllib.request.build_opener(*handlers)

    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, "api_base": self.settings.api_base}

    def batch_prompts(self, n: int) -> int:
        return max(1, (4 * self.settings.concurrency) // max(1, n))

    # -- requests ----------------------------------------------------------------------------
    def _url(self, prompt: Prompt) -> str:
        base = self.settings.api_base.rstrip("/")
        return f"{base}/chat/completions" if prompt.style == "chat" else f"{base}/completions"

    def _body(self, prompt: Prompt, params: SamplingParams, seed: int) -> dict[str, Any]:
        body: dict[str, Any] = {
            "model": self.settings.model,
            "max_tokens": params.max_new_tokens,
            "temperature": params.temperature,
            "n": 1,
            "seed": seed,
        }
        if not params.greedy:
            body["top_p"] = params.top_p
        if params.stop:
            body["stop"] = list(params.stop[:MAX_API_STOPS])
        if prompt.style == "chat":
            body["messages"] = [dict(m) for m in prompt.messages]
        else:
            body["prompt"] = prompt.text
        return body

    def _post(self, url: str, body: dict[str, Any]) -> dict[str, Any]:
        headers = {"Content-Type": "application/json", "Accept": "application/json"}
        if self.settings.api_key:
            headers["Authorization"] = f"Bearer {self.settings.api_key}"
        request = urllib.request.Request(
            url, data=json.dumps(body).encode("utf-8"), headers=headers, method="POST"
        )
        with self._lock:
            self.stats.requests += 1
        try:
            with self._opener.open(request, timeout=self.settings.timeout_s) as response:
                raw = response.read()
        except urllib.error.HTTPError as exc:
            detail = _error_detail(exc)
            if exc.code in FATAL_STATUSES:
                what = (
                    "rejected the API key" if exc.code in (401, 403) else "does not know this path or model"
                )
                raise GenerationSetupError(f"{url}: HTTP {exc.code}: the endpoint {what}: {detail}") from exc
            if exc.code in RETRY_STATUSES or exc.code >= 500:
                raise _Retryable(f"HTTP {exc.code}: {detail}", _retry_after(exc)) from exc
            raise _Failed(f"HTTP {exc.code}: {detail}") from exc
        except (
            urllib.error.URLError,
            TimeoutError,
            ConnectionError,
            http.client.HTTPException,
            OSError,
        ) as exc:
            reason = getattr(exc, "reason", None) or exc
            raise _Retryable(f"{type(exc).__name__}: {reason}") from exc
        try:
            data = json.loads(raw)
        except (json.JSONDecodeError, UnicodeDecodeError) as exc:
            raise _Retryable(f"response is not JSON: {raw[:200]!r}") from exc
        if not isinstance(data, dict):
            raise _Retryable(f"response is not a JSON object: {raw[:200]!r}")
        return data

    @staticmethod
    def _text(prompt: Prompt, data: dict[str, Any]) -> tuple[str, str | None]:
        try:
            choice = data["choices"][0]
            text = choice["message"]["content"] if prompt.style == "chat" else choice["text"]
        except (KeyError, IndexError, TypeError) as exc:
            raise _Retryable(f"unexpected response shape ({exc!r}): {json.dumps(data)[:200]}") from exc
        return (text or ""), choice.get("finish_reason")

    def _delay(self, attempt: int, retry_after: float | None) -> float:
        cap = min(self.settings.backoff_max_s, self.settings.backoff_initial_s * (2**attempt))
        delay = cap * self._rng.uniform(0.5, 1.0)
        if retry_after is not None:
            delay = max(delay, min(retry_after, self.settings.backoff_max_s))
        return delay

    def _one(self, prompt: Prompt, params: SamplingParams, seed: int, stop: threading.Event) -> Completion:
        url, body = self._url(prompt), self._body(prompt, params, seed)
        last = ""
        for attempt in range(self.settings.max_retries + 1):
            if stop.is_set():
                return Completion("", error="cancelled")
            if attempt:
                with self._lock:
                    self.stats.retries += 1
            try:
                text, reason = self._text(prompt, self._post(url, body))
                return Completion(apply_stop(text, params.stop), finish_reason=reason)
            except GenerationSetupError:
                stop.set()
                raise
            except _Failed as exc:
                last = str(exc)
                break
            except _Retryable as exc:
                last = str(exc)
                if attempt < self.settings.max_retries:
                    delay = self._delay(attempt, exc.retry_after)
                    # waiting on the event lets a setup error elsewhere cut the wait short
                    self._sleep(delay) if self._sleep is not None else stop.wait(delay)
        with self._lock:
            self.stats.failed += 1
        tries = attempt + 1
        return Completion("", error=f"{url}: failed after {tries} attempt{'s' * (tries > 1)}: {last}")

    def complete(self, prompts: Sequence[Prompt], n: int, params: SamplingParams) -> list[list[Completion]]:
        check_prompts(prompts, n)
        stop = threading.Event()
        jobs = [(i, j) for i in range(len(prompts)) for j in range(n)]
        pool = ThreadPoolExecutor(max_workers=self.settings.concurrency, thread_name_prefix="codegym-api")
        try:
            futures = {
                (i, j): pool.submit(
                    self._one, prompts[i], params, derive_seed(params.seed, prompts[i].task_id, j), stop
                )
                for i, j in jobs
            }
            results = {job: future.result() for job, future in futures.items()}
        except BaseException:
            # a setup error or Ctrl-C: queued requests are dropped, running ones stop at their next attempt
            stop.set()
            pool.shutdown(wait=False, cancel_futures=True)
            raise
        pool.shutdown()
        return [[results[(i, j)] for j in range(n)] for i in range(len(prompts))]


def _error_detail(exc: urllib.error.HTTPError) -> str:
    try:
        body = exc.read().decode("utf-8", "replace")
    except (OSError, ValueError):  # a broken error body must not hide the status
        body = ""
    try:
        message = json.loads(body)["error"]["message"]
    except (json.JSONDecodeError, KeyError, TypeError):
        message = body.strip()
    return (message or exc.reason or "")[:300]


def _retry_after(exc: urllib.error.HTTPError) -> float | None:
    value = exc.headers.get("Retry-After") if exc.headers else None
    try:
        return max(0.0, float(value)) if value is not None else None
    except ValueError:
        return None
