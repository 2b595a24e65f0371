"""The `ray` backend: the same SandboxBackend interface and ExecResults, executions spread over the
sandbox actors of a Ray cluster (each actor hosts an ordinary local or Docker pool on its node).

See dispatch.py for the guarantees (bounded in-flight work, retries on actor/node loss, request
order) and actor.py for what runs on the nodes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterable, Sequence
from typing import Any

from codegym.sandbox.backend import SandboxBackend, SandboxUnavailable
from codegym.sandbox.ray import wire
from codegym.sandbox.ray.config import RaySandboxConfig
from codegym.sandbox.types import ExecRequest, ExecResult

try:
    import ray
except ModuleNotFoundError as exc:  # pragma: no cover - ray is a dependency; a clear message if not
    raise SandboxUnavailable(f"the ray backend needs Ray: pip install 'ray[serve]' ({exc})") from exc

from codegym.sandbox.ray.dispatch import Dispatcher, Item, Job, Slot


class RayBackend(SandboxBackend):
    """Thread-safe; `execute_many` from several threads shares the actors and their bounds."""

    name = "ray"

    def __init__(self, config: RaySandboxConfig | None = None, **options: Any) -> None:
        """Keyword options are RaySandboxConfig fields; any other option (`workers`, `preload`,
        `isolation`, ...) goes to each actor's inner backend (`workers` = workers per actor)."""
        overrides, inner = RaySandboxConfig.split_options(options)
        if config is not None and overrides:
            from dataclasses import asdict

            config = RaySandboxConfig(**{**asdict(config), **overrides})
        self.config = config or RaySandboxConfig(**overrides)
        self.inner_options = {**self.config.inner_options, **inner}
        if self.config.workers_per_actor:
            self.inner_options["workers"] = self.config.workers_per_actor
        self._connected_here = False
        self._dispatcher: Dispatcher | None = None
        self._start_lock = threading.Lock()
        self._start_error: BaseException | None = None
        self._background: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------------
    def start(self) -> None:
        with self._start_lock:
            if self._dispatcher is not None:
                return
            try:
                if not self._connected_here:
                    self._connected_here = wire_connect(self.config)
                dispatcher = Dispatcher(
                    self.config, self.inner_options, make_failure=self._failure, decode=self._decode
                )
                dispatcher.start(self.config.actor_start_timeout_s)
            except RuntimeError as exc:
                raise SandboxUnavailable(f"ray backend: {exc}") from exc
            self._dispatcher = dispatcher

    def start_in_background(self) -> None:
        # ray.init belongs on the main thread (it installs signal handlers, and a failure there ends
        # the process); only the actors start in the background
        with self._start_lock:
            if self._dispatcher is None and not self._connected_here:
                try:
                    self._connected_here = wire_connect(self.config)
                except RuntimeError as exc:
                    raise SandboxUnavailable(f"ray backend: {exc}") from exc

        def run() -> None:
            try:
                self.start()
            except BaseException as exc:  # raised again on first use
                self._start_error = exc

        self._background = threading.Thread(target=run, name="codegym-ray-start", daemon=True)
        self._background.start()

    def _ready(self) -> Dispatcher:
        if self._background is not None:
            self._background.join()
            self._background = None
        if self._dispatcher is None:
            self.start()
        assert self._dispatcher is not None
        return self._dispatcher

    def close(self) -> None:
        if self._background is not None:
            self._background.join()
        if self._dispatcher is not None:
            self._dispatcher.close()
            self._dispatcher = None
        if self._connected_here and ray.is_initialized():
            ray.shutdown()
            self._connected_here = False

    # -- execution ---------------------------------------------------------------------------
    def execute_many(
        self,
        requests: Iterable[ExecRequest],
        *,
        on_result: Callable[[int, ExecResult], None] | None = None,
        max_concurrency: int | None = None,
    ) -> list[ExecResult]:
        """Results in input order. `max_concurrency` is not needed here: the actors' in-flight bounds
        apply to all callers together."""
        items = list(requests)
        job = Job("exec", len(items), on_result)
        work = []
        for index, request in enumerate(items):
            key, part, solution = wire.split_request(request)
            work.append(Item(job, index, key, (solution, request.request_id), _constant(part)))
        return self._run(job, work)

    def run_job(self, kind: str, work: Sequence[tuple[str, tuple, Callable[[], Any]]]) -> list[Any]:
        """Run items of another kind (the reward judge's `score`): (key, payload, blob maker) each."""
        job = Job(kind, len(work))
        return self._run(
            job, [Item(job, i, key, payload, blob) for i, (key, payload, blob) in enumerate(work)]
        )

    def _run(self, job: Job, work: list[Item]) -> list[Any]:
        dispatcher = self._ready()
        if work:
            dispatcher.submit(job, work)
            job.done.wait()
        return list(job.results)

    def broadcast(self, method: str, *args: Any) -> list[Any]:
        """Call `method` on every live actor (e.g. `prepare`), return what each returned."""
        handles = [slot.handle for slot in self._ready().live_actors()]
        return ray.get([getattr(handle, method).remote(*args) for handle in handles])

    def reward_judge(self, config: Any = None, cache: Any = None, yardsticks: Any = None) -> Any:
        """A reward judge that scores on the actors (see judge.py); used by `judge_for`."""
        from codegym.sandbox.ray.judge import RayRewardJudge

        return RayRewardJudge(self, config, cache, yardsticks)

    # -- results -----------------------------------------------------------------------------
    def _failure(self, item: Item, why: str) -> Any:
        if item.job.kind == "exec":
            return ExecResult.sandbox_error(why, backend=self.name, attempts=item.attempts)
        return {"error": why, "attempts": item.attempts}

    def _decode(self, kind: str, raw: Any, slot: Slot) -> Any:
        if kind == "exec":
            return ExecResult.from_dict({**raw, "backend": self.name})
        return raw

    # -- description -------------------------------------------------------------------------
    @property
    def image(self) -> str:
        """The inner sandboxes' image(s): the same programs judged in the same environment on a
        single node or on a cluster are the same judgment (cache keys are shared)."""
        images = sorted({slot.info["image"] for slot in self._ready().live_actors() if slot.info})
        return "|".join(images)

    @property
    def workers(self) -> int:
        """Workers across all live actors (callers size their batches by it)."""
        if self._dispatcher is None:  # before start: what a local instance would have
            from codegym.sandbox.local import default_worker_count

            return int(self.inner_options.get("workers") or default_worker_count())
        return sum(int(slot.info.get("workers", 1)) for slot in self._dispatcher.live_actors() if slot.info)

    def actor_stats(self) -> list[dict[str, Any]]:
        slots = self._ready().live_actors()
        stats = ray.get([slot.handle.stats.remote() for slot in slots])
        return [
            {"node_id": slot.node_id, **(slot.info or {}), **s} for slot, s in zip(slots, stats, strict=True)
        ]

    def info(self) -> dict[str, Any]:
        dispatcher = self._ready()
        return {
            "backend": self.name,
            "image": self.image,
            "address": self.config.address,
            "inner_backend": self.config.inner_backend,
            "actors": [
                {"node_id": slot.node_id, **(slot.info or {}), "capacity": slot.capacity}
                for slot in dispatcher.live_actors()
            ],
            "workers": self.workers,
            "actor_deaths": dispatcher.actor_deaths,
            "retries": dispatcher.retries,
        }


def wire_connect(config: RaySandboxConfig) -> bool:
    from codegym.sandbox.ray.cluster import connect

    return connect(config.address, config.namespace)


def _constant(value: Any) -> Callable[[], Any]:
    return lambda: value
