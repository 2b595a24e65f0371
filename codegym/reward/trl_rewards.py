"""Reward functions with TRL's signature, backed by one RewardJudge.

    rewards = TrlRewards(judge, pack)
    GRPOTrainer(..., reward_funcs=rewards.functions("joint"),
                args=GRPOConfig(..., reward_weights=rewards.weights("joint")))

Each function takes `(prompts, completions, **kwargs)` — dataset columns such as `task_id` arrive as
kwargs — and returns one `float | None` per completion: None (never 0) when the sandbox failed.
TRL logs each function as `rewards/<name>/mean`.

Two equivalent layouts:
* `joint`: the gated, penalised total as one function (weight 1), plus every component and the
  hack indicator as weight-0 monitors, so TRL logs them without training on them.
* `components`: one function per component, each returning its gated contribution, plus a
  `penalty` function; with `weights("components")` TRL's weighted sum equals the joint total.

The first function called for a batch judges it; the others read a memo. Async variants
(`async_functions`) run judging in a thread so TRL can overlap it with other async work.

Multi-turn episodes (codegym.train.multiturn) arrive with their first and final attempts as extra
columns. The trained reward is then SCoRe-style, `(r1 + r2 + bonus * max(0, r2 - r1)) / 2`
(`episode_reward`); in the `components` layout each component is the mean of its two attempts' and
the bonus rides on `penalty`, so the weighted sum still equals the joint value. Monitors (weight 0)
report the final attempt.
"""

from __future__ import annotations

import asyncio
import threading
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from typing import Any, Literal

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.config import COMPONENTS, QUALITY_COMPONENTS
from codegym.reward.extract import completion_text, extract_code
from codegym.reward.scoring import RewardJudge, ScoredSample
from codegym.tasks.model import Task, TaskPack

Layout = Literal["joint", "components"]
FINAL_COMPLETION = "codegym_final_completion"
FIRST_COMPLETION = "codegym_first_completion"
RewardFunc = Callable[..., list[float | None]]
EpisodeValue = Callable[[RewardBreakdown, RewardBreakdown], float | None]


def episode_reward(first: float | None, final: float | None, bonus: float) -> float | None:
    """A multi-turn episode's reward from its first attempt's (r1) and final attempt's (r2) rewards:
    (r1 + r2 + bonus * max(0, r2 - r1)) / 2, after SCoRe (Kumar et al., 2024). Without a retry r2 = r1
    and this is r1, so with bonus < 1 a first-try pass outranks failing then fixing, which outranks
    failing twice. None when either attempt could not be judged."""
    if first is None or final is None:
        return None
    return (first + final + bonus * max(0.0, final - first)) / 2


class TrlRewards:
    def __init__(
        self,
        judge: RewardJudge,
        tasks: TaskPack | Mapping[str, Task],
        *,
        task_id_column: str = "task_id",
        memo_size: int = 16384,
        correction_bonus: float = 0.0,
        on_batch: Callable[[list[str], list[str], list[ScoredSample], dict[str, Any]], None] | None = None,
    ) -> None:
        self.judge = judge
        if not 0 <= correction_bonus < 1:
            raise ValueError(f"correction_bonus must be in [0, 1), got {correction_bonus}")
        self.correction_bonus = correction_bonus
        self.on_batch = on_batch
        self._pack = tasks if isinstance(tasks, TaskPack) else None
        self._tasks = dict(tasks.tasks if isinstance(tasks, TaskPack) else tasks)
        self.task_id_column = task_id_column
        self._memo: OrderedDict[tuple[str, str], ScoredSample] = OrderedDict()
        self._memo_size = memo_size
        self._lock = threading.Lock()

    # -- judging -----------------------------------------------------------------------------
    def _task(self, task_id: str) -> Task:
        if self._pack is not None:
            return self._pack.get(task_id)
        if task_id not in self._tasks:
            raise KeyError(f"unknown task_id {task_id!r}; the reward functions know {len(self._tasks)} tasks")
        return self._tasks[task_id]

    def breakdowns(self, completions: Sequence[Any], **kwargs: Any) -> list[RewardBreakdown]:
        return [scored.breakdown for scored in self.scored(completions, **kwargs)]

    def scored(self, completions: Sequence[Any], **kwargs: Any) -> list[ScoredSample]:
        """Breakdowns (with the sandbox results behind them) for a batch, judging only what is new."""
        task_ids = kwargs.get(self.task_id_column)
        if task_ids is None or len(task_ids) != len(completions):
            raise ValueError(
                f"the dataset needs a {self.task_id_column!r} column with one id per completion "
                f"(got {None if task_ids is None else len(task_ids)} for {len(completions)} completions)"
            )
        keys = [(str(task_id), completion_text(c)) for task_id, c in zip(task_ids, completions, strict=True)]
        with self._lock:  # one judging per batch even when TRL calls several functions concurrently
            missing = [i for i, key in enumerate(keys) if key not in self._memo]
            if missing:
                items = []
                for i in missing:
                    task = self._task(keys[i][0])
                    extracted = extract_code(task, keys[i][1], self.judge.config.completion_format)
                    items.append((task, extracted.code, extracted.first_generated_line))
                # copies of one program in the batch share one judgment (see score_many)
                judged = self.judge.score_many(items, share_copies=True)
                for i, scored in zip(missing, judged, strict=True):
                    self._memo[keys[i]] = scored
                while len(self._memo) > self._memo_size:
                    self._memo.popitem(last=False)
            found = [self._memo[key] for key in keys]
            for key in keys:
                self._memo.move_to_end(key)
        if missing:
            self._log([f.breakdown for f in found], kwargs)
            if self.on_batch is not None:
                self.on_batch([k[0] for k in keys], [k[1] for k in keys], found, kwargs)
        return found

    @staticmethod
    def _log(breakdowns: list[RewardBreakdown], kwargs: dict[str, Any]) -> None:
        log_metric = kwargs.get("log_metric")
        if callable(log_metric):
            for name, value in batch_rates(breakdowns).items():
                log_metric(name, value)
        log_extra = kwargs.get("log_extra")
        if callable(log_extra):
            log_extra("status", [b.status for b in breakdowns])
            log_extra("flags", [",".join(b.flags) for b in breakdowns])

    # -- per-sample values -------------------------------------------------------------------
    def _gate(self, breakdown: RewardBreakdown) -> float:
        return self.judge.config.gate(breakdown.components.get("tests") or 0.0, breakdown.passed)

    def _contribution(self, breakdown: RewardBreakdown, name: str) -> float | None:
        """The component's share of the joint total, before division by the weight sum."""
        value = breakdown.components.get(name)
        if breakdown.total is None:
            return None
        if value is None:
            return 0.0
        return value if name == "tests" else self._gate(breakdown) * value

    def _penalty(self, breakdown: RewardBreakdown) -> float | None:
        """total minus the weighted contributions: the penalties (and any renormalisation for an
        unmeasured component), so that the `components` layout sums exactly to the joint total."""
        if breakdown.total is None:
            return None
        weights = self.judge.config.weights.as_dict()
        denominator = sum(weights.values())
        gross = sum(weights[n] / denominator * (self._contribution(breakdown, n) or 0.0) for n in COMPONENTS)
        return breakdown.total - gross

    # -- TRL functions -----------------------------------------------------------------------
    def _function(
        self,
        name: str,
        value: Callable[[RewardBreakdown], float | None],
        episode: EpisodeValue | None = None,
        *,
        logs_episodes: bool = False,
    ) -> RewardFunc:
        """A TRL reward function. For multi-turn episodes: `episode(first, final)` makes the value from
        both attempts (None: the final attempt's value). `logs_episodes`: this function logs the batch
        rates of multi-turn final attempts — the rollout judged them without TRL's loggers, so judging
        here only reads the memo and would log nothing; one function per layout does it, once."""

        def reward(prompts: Sequence[Any] | None = None, completions: Sequence[Any] = (), **kwargs: Any):
            final = kwargs.get(FINAL_COMPLETION)
            finals = self.breakdowns(final if final is not None else completions, prompts=prompts, **kwargs)
            if final is not None and logs_episodes:
                self._log(finals, kwargs)
            first = kwargs.get(FIRST_COMPLETION)
            if episode is None or first is None:
                return [value(b) for b in finals]
            firsts = self.breakdowns(first, prompts=prompts, **kwargs)
            return [episode(a, b) for a, b in zip(firsts, finals, strict=True)]

        reward.__name__ = reward.__qualname__ = name
        return reward

    def _mean_of_attempts(self, value: Callable[[RewardBreakdown], float | None]) -> EpisodeValue:
        def mean(first: RewardBreakdown, final: RewardBreakdown) -> float | None:
            a, b = value(first), value(final)
            return None if a is None or b is None else (a + b) / 2

        return mean

    def joint(self) -> RewardFunc:
        return self._function(
            "joint",
            lambda b: b.total,
            lambda first, final: episode_reward(first.total, final.total, self.correction_bonus),
            logs_episodes=True,
        )

    def component(self, name: str, *, gated: bool = False) -> RewardFunc:
        if name not in COMPONENTS:
            raise KeyError(f"unknown component {name!r}; valid: {', '.join(COMPONENTS)}")
        if gated:

            def contribution(breakdown: RewardBreakdown) -> float | None:
                return self._contribution(breakdown, name)

            return self._function(
                name, contribution, self._mean_of_attempts(contribution), logs_episodes=name == COMPONENTS[0]
            )
        return self._function(name, lambda b: None if b.total is None else b.components.get(name))

    def hacks(self) -> RewardFunc:
        return self._function("hacks", lambda b: None if b.total is None else float(b.hacked))

    def penalty(self) -> RewardFunc:
        mean = self._mean_of_attempts(self._penalty)

        def episode(first: RewardBreakdown, final: RewardBreakdown) -> float | None:
            # the improvement bonus: with the components' means, the weighted sum is episode_reward
            average = mean(first, final)
            if average is None or first.total is None or final.total is None:
                return None
            return average + self.correction_bonus * max(0.0, final.total - first.total) / 2

        return self._function("penalty", self._penalty, episode)

    def functions(self, layout: Layout = "joint") -> list[RewardFunc]:
        if layout == "joint":
            return [self.joint(), *(self.component(n) for n in COMPONENTS), self.hacks()]
        if layout == "components":
            return [*(self.component(n, gated=True) for n in COMPONENTS), self.penalty()]
        raise ValueError(f"layout must be joint or components, got {layout!r}")

    def weights(self, layout: Layout = "joint") -> list[float]:
        if layout == "joint":
            return [1.0] + [0.0] * len(COMPONENTS) + [0.0]
        if layout != "components":
            raise ValueError(f"layout must be joint or components, got {layout!r}")
        weights = self.judge.config.weights.as_dict()
        denominator = sum(weights.values())
        return [weights[n] / denominator for n in COMPONENTS] + [1.0]

    def async_functions(self, layout: Layout = "joint") -> list[Callable[..., Any]]:
        return [make_async(f) for f in self.functions(layout)]


def batch_rates(breakdowns: Sequence[RewardBreakdown]) -> dict[str, float]:
    """Per-batch rates a trainer logs (and alarms on): hacking, passing, sandbox errors."""
    count = len(breakdowns) or 1
    rates = {
        "codegym/hack_rate": sum(b.hacked for b in breakdowns) / count,
        "codegym/pass_rate": sum(b.passed for b in breakdowns) / count,
        "codegym/sandbox_error_rate": sum(b.total is None for b in breakdowns) / count,
    }
    # tests (or cases) passed / tests, where every test ran: the partial figure the binary reward hides
    fractions = [b.details.get("tests_raw") for b in breakdowns if b.total is not None]
    fractions = [f for f in fractions if isinstance(f, float)]
    if fractions:
        rates["codegym/tests_passed_fraction"] = sum(fractions) / len(fractions)
    return rates


def make_async(function: RewardFunc) -> Callable[..., Any]:
    """An `async def` twin (same __name__) that judges in a worker thread."""

    async def reward(*args: Any, **kwargs: Any) -> list[float | None]:
        return await asyncio.to_thread(function, *args, **kwargs)

    reward.__name__ = reward.__qualname__ = function.__name__
    return reward


__all__ = ["QUALITY_COMPONENTS", "TrlRewards", "make_async"]
