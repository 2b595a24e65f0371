"""Fixtures for training tests: one tiny model per session, small configs."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from codegym.tasks.registry import TaskRegistry
from codegym.train.config import TrainConfig, config_from_dict
from codegym.train.tiny import TinyModelSpec, build_tiny_model, task_corpus


@pytest.fixture(scope="session")
def tiny_model_path(tmp_path_factory: pytest.TempPathFactory) -> str:
    registry = TaskRegistry()
    corpus = task_corpus([registry.load("basics")])
    return str(build_tiny_model(tmp_path_factory.mktemp("tiny-model"), corpus, TinyModelSpec(vocab_size=600)))


def small_config(model: str, run_dir: Path, algorithm: str = "grpo", **sections: Any) -> TrainConfig:
    """A few-step CPU run on four basics tasks. Quality is not gated (`quality_gate: none`) so that even
    a random model's completions get different rewards and the policy gradient is non-zero."""
    return config_from_dict(small_config_dict(model, run_dir, algorithm, **sections), source="test")


def small_config_dict(model: str, run_dir: Path, algorithm: str = "grpo", **sections: Any) -> dict[str, Any]:
    """`small_config` as the YAML mapping, for tests that hand it to another process."""
    trl = {
        "max_steps": 2,
        "learning_rate": 1e-2,
        "per_device_train_batch_size": 4,
        "logging_steps": 1,
        "save_steps": 1,
        "report_to": [],
        "seed": 0,
    }
    if algorithm == "ppo":
        trl.update(
            {
                "response_length": 24,
                "num_ppo_epochs": 1,
                "num_mini_batches": 1,
                "local_rollout_forward_batch_size": 4,
            }
        )
    else:
        trl.update({"num_generations": 4, "max_completion_length": 24})
    trl.update(sections.pop("trl", {}))
    data = {
        "algorithm": algorithm,
        "model": {"name_or_path": model},
        "data": {
            "packs": ["basics"],
            "max_tasks": 4,
            "prompt": {"style": "completion", "include_visible_tests": False},
        },
        "reward": {"quality_gate": "none", "timing_repeats": 1},
        "output": {"dir": str(run_dir), "cache": "memory", "plot": True},
        "trl": trl,
    }
    data.update(sections)
    return data
