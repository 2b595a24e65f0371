"""Did RL teach the policy anything? pass@1 before and after, with a confidence interval.

`evaluate_policy` samples `samples_per_task` completions per task from a model directory and judges
each against the task's hidden tests (correctness only: the verdict, not the joint reward). pass@1
is the mean over tasks of each task's pass fraction (the unbiased estimator for n samples, k = 1).

`paired_difference` compares two evaluations of the same tasks: the difference of pass@1 with a
bootstrap confidence interval that resamples *tasks* (the samples of one task are not independent
of each other, so resampling samples would make the interval far too narrow).
"""

from __future__ import annotations

import random
import statistics
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from codegym.reward.extract import extract_code
from codegym.rollout.prompts import PromptBuilder, PromptConfig
from codegym.sandbox.backend import SandboxBackend
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecStatus
from codegym.tasks.model import Task


@dataclass(frozen=True)
class SamplingSettings:
    """How each policy is sampled for the figure; both sides of a comparison share one."""

    samples_per_task: int
    temperature: float
    max_new_tokens: int
    seed: int
    prompt: PromptConfig


@dataclass(frozen=True)
class PolicyEval:
    model: str
    passes: dict[str, int]  # task id -> passing samples
    samples_per_task: int
    sandbox_errors: int = 0

    @property
    def pass_at_1(self) -> float:
        return statistics.fmean(count / self.samples_per_task for count in self.passes.values())

    def to_dict(self) -> dict[str, Any]:
        return {
            "model": self.model,
            "pass@1": self.pass_at_1,
            "samples_per_task": self.samples_per_task,
            "passes": self.passes,
            "sandbox_errors": self.sandbox_errors,
        }


@dataclass(frozen=True)
class PairedDifference:
    before: float
    after: float
    difference: float
    low: float
    high: float
    confidence: float
    tasks: int

    def describe(self) -> str:
        return (
            f"pass@1 {self.before:.3f} -> {self.after:.3f} on {self.tasks} training tasks: "
            f"difference {self.difference:+.3f}, {self.confidence:.0%} CI "
            f"[{self.low:+.3f}, {self.high:+.3f}] (task-clustered bootstrap)"
        )

    def to_dict(self) -> dict[str, Any]:
        return {
            "before": self.before,
            "after": self.after,
            "difference": self.difference,
            "ci_low": self.low,
            "ci_high": self.high,
            "confidence": self.confidence,
            "tasks": self.tasks,
            "method": "paired bootstrap over tasks",
        }


def evaluate_policy(
    model_dir: str,
    tasks: Sequence[Task],
    backend: SandboxBackend,
    sampling: SamplingSettings,
    *,
    batch_size: int = 64,
) -> PolicyEval:
    """Sample and judge; a sample whose sandbox failed (ours, not the program's) counts as not passed
    and is reported, so a broken sandbox can never flatter the figure."""
    from codegym.rollout.generation.base import SamplingParams
    from codegym.rollout.generation.hf import TransformersGenerator, TransformersSettings

    builder = PromptBuilder(sampling.prompt)
    prompts = [builder.build(task) for task in tasks]
    params = SamplingParams(
        temperature=sampling.temperature,
        top_p=1.0,
        max_new_tokens=sampling.max_new_tokens,
        seed=sampling.seed,
    )
    settings = TransformersSettings(model=model_dir, device="auto", batch_size=batch_size)
    with TransformersGenerator(settings) as generator:
        outputs = generator.generate(prompts, sampling.samples_per_task, params)
    mode = "append" if sampling.prompt.style == "completion" else "solution"
    requests, owners = [], []
    for task, completions in zip(tasks, outputs, strict=True):
        for completion in completions:
            extracted = extract_code(task, completion, mode)
            requests.append(request_for_task(task, extracted.code))
            owners.append(task.task_id)
    passes = {task.task_id: 0 for task in tasks}
    errors = 0
    for owner, result in zip(owners, backend.execute_many(requests), strict=True):
        if result.status is ExecStatus.PASSED:
            passes[owner] += 1
        elif result.status is ExecStatus.SANDBOX_ERROR:
            errors += 1
    return PolicyEval(model_dir, passes, sampling.samples_per_task, errors)


def paired_difference(
    before: PolicyEval, after: PolicyEval, *, confidence: float = 0.95, resamples: int = 10_000, seed: int = 0
) -> PairedDifference:
    """pass@1(after) - pass@1(before) with a percentile bootstrap over tasks (paired: each resample
    draws tasks, and both evaluations' fractions of a drawn task enter together)."""
    if before.passes.keys() != after.passes.keys():
        raise ValueError("the two evaluations cover different tasks")
    differences = [
        after.passes[t] / after.samples_per_task - before.passes[t] / before.samples_per_task
        for t in sorted(before.passes)
    ]
    rng = random.Random(seed)
    n = len(differences)
    means = sorted(statistics.fmean(rng.choices(differences, k=n)) for _ in range(resamples))
    tail = (1 - confidence) / 2
    low = means[int(tail * resamples)]
    high = means[min(resamples - 1, int((1 - tail) * resamples))]
    return PairedDifference(
        before.pass_at_1, after.pass_at_1, statistics.fmean(differences), low, high, confidence, n
    )


@dataclass(frozen=True)
class LearningReport:
    before: PolicyEval
    after: PolicyEval
    difference: PairedDifference
    split: str = "training tasks"

    def describe(self) -> str:
        return f"{self.split}: {self.difference.describe()}"

    def to_dict(self) -> dict[str, Any]:
        return {
            "split": self.split,
            **self.difference.to_dict(),
            "before_model": self.before.to_dict(),
            "after_model": self.after.to_dict(),
        }


def evaluate_learning(
    before_model: str,
    after_model: str,
    tasks: Sequence[Task],
    backend: SandboxBackend,
    sampling: SamplingSettings,
    *,
    split: str = "training tasks",
) -> LearningReport:
    """Both models sampled with the same seed and settings, then compared task by task."""
    before = evaluate_policy(before_model, tasks, backend, sampling)
    after = evaluate_policy(after_model, tasks, backend, sampling)
    return LearningReport(before, after, paired_difference(before, after), split)
