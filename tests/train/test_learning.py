"""pass@1 before/after RL with a task-clustered confidence interval (codegym.train.learning)."""

from __future__ import annotations

import json

import pytest

from codegym.rollout.prompts import PromptConfig
from codegym.sandbox.local import LocalBackend
from codegym.tasks.registry import TaskRegistry
from codegym.train.learning import PolicyEval, SamplingSettings, evaluate_policy, paired_difference
from codegym.train.run import run_training
from tests.train.conftest import small_config


def test_the_interval_is_over_tasks_not_samples() -> None:
    before = PolicyEval("a", {f"t{i}": 5 for i in range(10)}, 10)
    # every task +20 points: a certain improvement, the interval collapses onto it
    after = PolicyEval("b", {f"t{i}": 7 for i in range(10)}, 10)
    uniform = paired_difference(before, after)
    assert uniform.difference == pytest.approx(0.2) and uniform.low == pytest.approx(0.2)
    # the same mean gain carried by two tasks only: many samples, but few independent tasks
    lumpy = PolicyEval("c", {**{f"t{i}": 5 for i in range(8)}, "t8": 10, "t9": 10}, 10)
    clustered = paired_difference(before, lumpy)
    assert clustered.difference == pytest.approx(0.1)
    assert clustered.low <= 0.0 < clustered.high  # two lucky tasks do not make a significant gain
    with pytest.raises(ValueError, match="different tasks"):
        paired_difference(before, PolicyEval("d", {"x": 1}, 10))


def test_a_reference_policy_passes_and_a_broken_sandbox_never_counts(tiny_model_path: str) -> None:
    tasks = list(TaskRegistry().load("easy").tasks.values())[:3]
    with LocalBackend(workers=2) as backend:
        result = evaluate_policy(
            tiny_model_path,
            tasks,
            backend,
            SamplingSettings(
                samples_per_task=3,
                temperature=1.0,
                max_new_tokens=8,
                seed=0,
                prompt=PromptConfig(style="completion", include_visible_tests=False),
            ),
        )
    assert set(result.passes) == {task.task_id for task in tasks}
    assert all(0 <= count <= 3 for count in result.passes.values())
    assert result.sandbox_errors == 0 and 0.0 <= result.pass_at_1 <= 1.0


def test_training_ends_with_the_before_after_report(tiny_model_path: str, tmp_path) -> None:
    config = small_config(
        tiny_model_path,
        tmp_path / "run",
        evaluation={"enabled": True, "samples_per_task": 2},
    )
    lines: list[str] = []
    result = run_training(config, log=lines.append)
    report = json.loads((tmp_path / "run" / "learning.json").read_text())
    assert report["split"] == "training tasks" and report["tasks"] == 4
    assert report["before_model"]["model"] == tiny_model_path  # no SFT: RL started from the base
    assert report["after_model"]["model"].endswith("final-model")
    assert report["ci_low"] <= report["difference"] <= report["ci_high"]
    assert result.metrics["learning"]["difference"] == report["difference"]
    assert any("pass@1" in line and "CI" in line for line in lines)


def test_evaluation_settings_are_validated(tiny_model_path: str, tmp_path) -> None:
    with pytest.raises(ValueError, match=r"evaluation\.samples_per_task"):
        small_config(tiny_model_path, tmp_path, evaluation={"enabled": True, "samples_per_task": 0})
