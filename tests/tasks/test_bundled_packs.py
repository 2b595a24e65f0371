"""`codegym tasks check` over every bundled pack: each reference passes in the sandbox and a
`pass`-body solution fails (the task-pack analogue of gymnasium's check_env over every env)."""

from __future__ import annotations

import pytest

from codegym.eval.pack_check import check_pack
from codegym.tasks.registry import TaskRegistry

BUNDLED = TaskRegistry().names()
MINIMUM_TASKS = {"humaneval": 164, "basics": 30, "repo": 10, "mbpp_mini": 10, "cp_call": 10}


def test_expected_packs_are_bundled() -> None:
    assert set(MINIMUM_TASKS) <= set(BUNDLED)


@pytest.mark.slow
@pytest.mark.parametrize("pack_name", BUNDLED)
def test_every_task_of_every_bundled_pack_checks_out(pack_name: str, task_registry, local_backend) -> None:
    pack = task_registry.load(pack_name)
    assert len(pack) >= MINIMUM_TASKS.get(pack_name, 1)
    results = check_pack(pack, local_backend)
    problems = {r.task_id: r.problems for r in results if not r.ok}
    assert problems == {}


def test_repo_tasks_call_code_from_other_files(task_registry) -> None:
    pack = task_registry.load("repo")
    for task in pack.tasks.values():
        assert len(task.repo_files) >= 2, task.task_id
        assert task.solution_path not in task.repo_files
        assert "import" in task.prefix, f"{task.task_id}: the starter imports nothing from the repo"
