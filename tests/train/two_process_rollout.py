"""Run by tests/train/test_multiturn.py under `torchrun --nproc_per_node 2` (gloo, CPU): one multi-turn
rollout per process, where process 0's episodes all end after their first attempt (completion-style
prompts whose feedback cannot fit) and process 1's retry (chat prompts). Process 0 must keep taking
part in the collective steps of the second turn, or the run hangs. Usage: MODEL RUN_DIR."""

from __future__ import annotations

import json
import sys
from dataclasses import replace
from pathlib import Path

from codegym.reward.scoring import RewardJudge
from codegym.reward.trl_rewards import TrlRewards
from codegym.sandbox.local import LocalBackend
from codegym.train.data import build_training_data
from codegym.train.grpo import build_grpo_trainer
from codegym.train.multiturn import TURNS_FIELD, FeedbackRollout
from codegym.train.setup import RunSetup
from tests.train.conftest import small_config

FEEDBACK = {"turns": 2, "feedback_tokens": 120}
MAX_COMPLETION_LENGTH = 2 * 24 + 120


def main(model: str, run_dir: Path) -> None:
    styles = {}
    for style in ("completion", "chat"):
        data = {
            "packs": ["basics"],
            "max_tasks": 2,
            "prompt": {"style": style, "include_visible_tests": False},
        }
        config = small_config(
            model,
            run_dir,
            data=data,
            feedback=FEEDBACK,
            trl={
                "max_completion_length": MAX_COMPLETION_LENGTH,
                "per_device_train_batch_size": 2,
                "num_generations": 2,
            },
        )
        styles[style] = (config, build_training_data(config.data))
    config, data = styles["completion"]
    with LocalBackend(workers=1) as backend:
        judge = RewardJudge(backend, replace(config.reward, completion_format="append"))
        rewards = TrlRewards(judge, data.tasks)
        trainer = build_grpo_trainer(RunSetup(config, run_dir, model, data, rewards))
        rank = trainer.accelerator.process_index
        style = "completion" if rank == 0 else "chat"
        config, data = styles[style]
        judge = RewardJudge(backend, replace(config.reward, completion_format=data.completion_format))
        rollout = FeedbackRollout(
            TrlRewards(judge, data.tasks),
            data.tasks_by_prompt,
            trainer.processing_class,
            config.feedback,
            max_completion_length=MAX_COMPLETION_LENGTH,
        )
        output = rollout([row["prompt"] for row in data.rows], trainer)
        trainer.accelerator.wait_for_everyone()
    result = {
        "style": style,
        "turns": output[TURNS_FIELD],
        "lengths": [len(c) for c in output["completion_ids"]],
    }
    (run_dir / f"rank{rank}.json").write_text(json.dumps(result))


if __name__ == "__main__":
    main(sys.argv[1], Path(sys.argv[2]))
