"""One judging setup for every command and library caller: the sandbox backend, the reward judge
that fits it, the result cache and the yardstick store, made from typed options and closed together.

`judge`, `reward`, `eval` and training all judge through a `JudgeSession`, so each gets the same
things in the same order: the stores open first (a bad cache spec or an unreachable server fails
before any worker starts), then the backend; on leaving (normally, on an error or on Ctrl-C) the
backend closes first — no execution can still be writing a result — and then the stores.
"""

from __future__ import annotations

import contextlib
from collections.abc import Mapping
from dataclasses import dataclass, field
from types import TracebackType
from typing import TYPE_CHECKING, Any

from codegym.sandbox.backend import SandboxBackend, create_backend

if TYPE_CHECKING:  # the reward's modules load only when a reward config is given
    from codegym.reward.cache import ResultCache
    from codegym.reward.config import RewardConfig
    from codegym.reward.scoring import RewardJudge


def _default_reward() -> RewardConfig:
    from codegym.reward.config import RewardConfig

    return RewardConfig()


@dataclass(frozen=True)
class JudgingOptions:
    """What to judge with. `reward` None runs the tests only: no reward judge and no stores."""

    backend: str = "local"  # local, docker, ray, or http://host:port (a `codegym serve` service)
    workers: int = 0  # 0: the backend's default
    backend_options: Mapping[str, Any] = field(default_factory=dict)  # e.g. the ray address
    reward: RewardConfig | None = field(default_factory=_default_reward)
    cache: str = "default"  # default, off, memory, a .sqlite path, redis://...
    yardsticks: str = "default"  # default, off or a .sqlite path (off: kept in the cache, if any)

    def backend_arguments(self) -> dict[str, Any]:
        """The `create_backend` arguments of this session's backend (coverage preloaded when the
        reward measures it)."""
        return {
            "name": self.backend,
            "workers": self.workers,
            "coverage": bool(self.reward and self.reward.measures_coverage),
            **dict(self.backend_options),
        }


class JudgeSession:
    """`with JudgeSession(options) as session:` gives `session.backend`, `session.judge` (None
    without a reward config), `session.cache` and `session.yardsticks` (None when off)."""

    backend: SandboxBackend  # set on entering

    def __init__(self, options: JudgingOptions) -> None:
        self.options = options
        self.judge: RewardJudge | None = None
        self.cache: ResultCache | None = None
        self.yardsticks: ResultCache | None = None
        self._stack: contextlib.ExitStack | None = None

    def __enter__(self) -> JudgeSession:
        options = self.options
        with contextlib.ExitStack() as stack:  # whatever opened before a failure is closed again
            if options.reward is not None:
                from codegym.reward.cache import open_result_cache, open_yardsticks

                self.cache = _closed_on_exit(stack, open_result_cache(options.cache))
                self.yardsticks = _closed_on_exit(stack, open_yardsticks(options.yardsticks))
            self.backend = stack.enter_context(create_backend(**options.backend_arguments()))
            if options.reward is not None:
                from codegym.reward.judges import judge_for

                self.judge = judge_for(self.backend, options.reward, self.cache, self.yardsticks)
            self._stack = stack.pop_all()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        stack, self._stack = self._stack, None
        if stack is not None:  # last in, first out: the backend, then the yardsticks, then the cache
            stack.__exit__(exc_type, exc, traceback)


def _closed_on_exit(stack: contextlib.ExitStack, store: ResultCache | None) -> ResultCache | None:
    if store is not None:
        stack.callback(store.close)
    return store
