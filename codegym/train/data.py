"""Training data: task packs → a TRL dataset of prompts (with their task ids)."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codegym.rollout.prompts import PromptBuilder
from codegym.tasks.model import Task
from codegym.tasks.registry import TaskRegistry
from codegym.train.config import ConfigError, DataConfig
from codegym.train.multiturn import prompt_key


@dataclass
class TrainingData:
    rows: list[dict]  # {"prompt": text or messages, "task_id": ...}
    tasks: dict[str, Task]
    tasks_by_prompt: dict[str, Task]
    completion_format: str  # how the reward reads completions of these prompts
    packs: dict[str, tuple[str, str]]  # name -> (version, content hash)

    def dataset(self):
        from datasets import Dataset

        return Dataset.from_list(self.rows)


def build_training_data(config: DataConfig, registry: TaskRegistry | None = None) -> TrainingData:
    registry = registry or TaskRegistry(list(config.tasks_dirs))
    tasks: dict[str, Task] = {}
    packs = {}
    for name in config.packs:
        pack = registry.load(name)
        packs[name] = (pack.version, pack.content_hash)
        for task in pack.tasks.values():
            tasks[task.task_id] = task
    if config.tasks:
        unknown = sorted(set(config.tasks) - set(tasks))
        if unknown:
            raise ConfigError(f"data.tasks: unknown task ids {unknown[:5]} in packs {list(config.packs)}")
        tasks = {task_id: tasks[task_id] for task_id in config.tasks}
    selected: Sequence[Task] = list(tasks.values())
    if config.max_tasks:
        selected = selected[: config.max_tasks]
    builder = PromptBuilder(config.prompt)
    rows, by_prompt = [], {}
    try:
        for task in selected:
            prompt = builder.build(task)
            value = prompt.as_trl()
            key = prompt_key(value)
            if key in by_prompt:
                raise ConfigError(
                    f"data: tasks {by_prompt[key].task_id} and {task.task_id} have identical prompts"
                )
            by_prompt[key] = task
            rows.append({"prompt": value, "task_id": task.task_id})
    finally:
        builder.close()
    return TrainingData(
        rows=rows,
        tasks={t.task_id: t for t in selected},
        tasks_by_prompt=by_prompt,
        completion_format="append" if config.prompt.style == "completion" else "auto",
        packs=packs,
    )
