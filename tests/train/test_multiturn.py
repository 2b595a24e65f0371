"""Multi-turn self-correction: the episode reward ranks a first-try pass highest (real judged rewards),
episodes stay within the completion budget (a long traceback is cut to fit), completion-style
feedback restates the starter that the next attempt continues, and generation runs through TRL's
own engines — transformers (tested for real on the tiny model) and vLLM (TRL's VLLMGeneration in
server mode, its HTTP client replaced by the tiny model since vLLM is not installed here)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
import torch
from trl.generation.vllm_generation import VLLMGeneration

from codegym.reward.breakdown import RewardBreakdown
from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.reward.trl_rewards import FINAL_COMPLETION, FIRST_COMPLETION, TrlRewards, episode_reward
from codegym.rollout.feedback import CLOSING, feedback_for, feedback_message
from codegym.sandbox.types import ExecResult, ExecStatus, TestOutcome, TestResult
from codegym.train.config import ConfigError, FeedbackConfig, TrainConfig, config_from_dict
from codegym.train.data import build_training_data
from codegym.train.grpo import build_grpo_trainer
from codegym.train.multiturn import TURNS_FIELD, Episode, EpisodeBudget, FeedbackRollout, episode_budget
from codegym.train.run import run_training
from codegym.train.setup import RunSetup
from tests.conftest import REPO_ROOT
from tests.train.conftest import small_config

TASK_ID = "basics/balanced_brackets"


@pytest.fixture(scope="module")
def task(task_registry: Any) -> Any:
    return task_registry.load("basics").get(TASK_ID)


# -- the episode reward ----------------------------------------------------------------------------
def test_first_try_pass_beats_fail_then_fix_beats_failing_twice(local_backend: Any, task: Any) -> None:
    config = RewardConfig(timing_repeats=1, completion_format="append")
    rewards = TrlRewards(RewardJudge(local_backend, config), {TASK_ID: task})
    right = task.reference_solution[len(task.prefix) :]
    wrong, broken = "    return None\n", "    x = (\n"
    episodes = {
        "first-try pass": (right, right),
        "fail then fix": (wrong, right),
        "fail twice": (wrong, broken),
    }
    kwargs = {
        "task_id": [TASK_ID] * len(episodes),
        FIRST_COMPLETION: [first for first, _ in episodes.values()],
        FINAL_COMPLETION: [final for _, final in episodes.values()],
    }
    r_right, r_wrong, r_broken = (
        b.total for b in rewards.breakdowns([right, wrong, broken], task_id=[TASK_ID] * 3)
    )
    assert r_wrong < r_right and r_broken < r_right  # the order below needs nothing more
    for bonus in (0.0, 0.5, 0.99):
        rewards.correction_bonus = bonus
        first_try, fixed, failed_twice = rewards.joint()(prompts=None, completions=["unused"] * 3, **kwargs)
        assert first_try > fixed > failed_twice, bonus
        assert first_try == pytest.approx(r_right)  # no retry: the first attempt's reward
        assert fixed == pytest.approx((r_wrong + r_right + bonus * (r_right - r_wrong)) / 2)
        assert failed_twice == pytest.approx((r_wrong + r_broken) / 2)  # getting worse earns no bonus
        # the components layout trains on the same episode values
        parts = [
            f(prompts=None, completions=["unused"] * 3, **kwargs) for f in rewards.functions("components")
        ]
        weighted = [
            sum(w * p[i] for w, p in zip(rewards.weights("components"), parts, strict=True)) for i in range(3)
        ]
        assert weighted == pytest.approx([first_try, fixed, failed_twice])


def test_episode_reward_formula_and_unjudged_attempts() -> None:
    assert episode_reward(1.0, 1.0, 0.5) == 1.0
    assert episode_reward(0.0, 1.0, 0.5) == 0.75
    assert episode_reward(0.6, 0.2, 0.5) == pytest.approx(0.4)
    assert episode_reward(None, 1.0, 0.5) is None and episode_reward(0.0, None, 0.5) is None


def test_feedback_config_validates_the_bonus_and_refuses_the_old_credit(
    tiny_model_path: str, tmp_path: Path
) -> None:
    with pytest.raises(
        ConfigError, match=r"feedback\.improvement_credit: removed.*feedback\.correction_bonus"
    ):
        small_config(tiny_model_path, tmp_path, feedback={"turns": 2, "improvement_credit": 0.5})
    for bad in (1.0, -0.1, 1.5):
        with pytest.raises(ConfigError, match=r"feedback\.correction_bonus must be in \[0, 1\)"):
            small_config(tiny_model_path, tmp_path, feedback={"turns": 2, "correction_bonus": bad})
    with pytest.raises(ConfigError, match=r"trl\.max_completion_length 64 .*feedback\.feedback_tokens 48"):
        small_config(
            tiny_model_path,
            tmp_path,
            feedback={"turns": 2, "feedback_tokens": 48},
            trl={"max_completion_length": 64},
        )


# -- the budget --------------------------------------------------------------------------------------
def test_episode_budget_splits_the_completion_length_and_shrinks_for_a_long_prompt() -> None:
    config = FeedbackConfig(turns=3, feedback_tokens=40)
    budget = episode_budget(config, 200, prompt_length=100, window=2048)
    assert budget == EpisodeBudget(total=200, attempt=40, feedback=40, turns=3)
    # attempts that used their whole share leave feedback its reserve; a short attempt leaves it more
    assert budget.feedback_limit(used=40, turn=0) == 40 and budget.feedback_limit(used=10, turn=0) == 70
    assert budget.feedback_limit(used=120, turn=1) == 40
    # the context window has 100 tokens left after the prompt: everything shrinks in proportion
    short = episode_budget(config, 200, prompt_length=1948, window=2048)
    assert short == EpisodeBudget(total=100, attempt=20, feedback=20, turns=3)
    assert 3 * short.attempt + 2 * short.feedback <= short.total


def _long_failure() -> tuple[RewardBreakdown, ExecResult]:
    frames = "\n".join(
        f'File "solution.py", line {3 + i % 2}, in helper\n    return helper(depth + 1)' for i in range(400)
    )
    traceback = frames + "\nRecursionError: maximum recursion depth exceeded"
    tests = tuple(
        TestResult(
            f"test_solution.py::test_case_{i}",
            TestOutcome.FAILED,
            message="RecursionError " * 40,
            traceback=traceback,
            message_holds_no_test_data=True,  # shown whole: the cutting is what this tests
        )
        for i in range(8)
    )
    import_frame = 'File "<frozen importlib._bootstrap>", line 1204, in _gcd_import\n    \n'
    result = ExecResult(ExecStatus.FAILED, tests=tests, message=import_frame * 20 + traceback)
    breakdown = RewardBreakdown(
        total=0.0, components={"tests": 0.0}, status="failed", tests_passed=0, tests_total=8
    )
    return breakdown, result


def test_a_long_traceback_is_cut_in_the_middle_to_fit() -> None:
    breakdown, result = _long_failure()
    feedback = feedback_for(breakdown, result, style="completion")
    for max_chars in (feedback.min_chars, 300, 800, 2000):
        message = feedback.render(max_chars)
        assert message is not None and len(message) <= max_chars
        assert message.startswith(feedback.head) and message.endswith(CLOSING["completion"])
    assert feedback.render(feedback.min_chars - 1) is None
    assert "characters cut" in feedback.render(800) and "RecursionError" in feedback.render(800)
    assert "<frozen" not in feedback.render()  # the interpreter's import frames say nothing useful
    assert len(feedback_message(breakdown, result)) <= 2000


@pytest.mark.parametrize("style", ["completion", "chat"])
def test_feedback_tokens_never_exceed_their_limit(style: str, tiny_model_path: str, task: Any) -> None:
    from transformers import AutoTokenizer

    tokenizer = AutoTokenizer.from_pretrained(tiny_model_path)
    config = FeedbackConfig(turns=2, feedback_tokens=32)
    rollout = FeedbackRollout(None, {}, tokenizer, config, max_completion_length=256)  # type: ignore[arg-type]
    prompt = task.prefix if style == "completion" else [{"role": "user", "content": "Write is_balanced."}]
    episode = Episode(
        prompt, task, [], episode_budget(config, 256, 0, None), None if style == "completion" else prompt
    )
    episode.attempts.append("    return helper(0)\n")
    feedback = feedback_for(*_long_failure(), style=style)  # type: ignore[arg-type]
    full = len(rollout._encode(rollout._feedback_text(episode, feedback.render())))
    shortest = len(rollout._encode(rollout._feedback_text(episode, feedback.render(feedback.min_chars))))
    assert shortest < full
    for limit in (shortest, (shortest + full) // 2, full - 1):
        ids, message = rollout.fit_feedback(episode, feedback, limit)
        assert len(ids) <= limit and message.endswith(CLOSING[style])
        assert tokenizer.decode(ids) == rollout._feedback_text(episode, message)
    assert len(rollout.fit_feedback(episode, feedback, full + 5)[0]) == full  # room to spare: nothing cut
    assert rollout.fit_feedback(episode, feedback, shortest - 1) is None  # no room: no retry


# -- rollouts on the tiny model ---------------------------------------------------------------------
def _trainer(config: TrainConfig, run_dir: Path, model: str, backend: Any) -> Any:
    """GRPOTrainer with codegym's multi-turn rollout, built the way `codegym train` builds it."""
    data = build_training_data(config.data)
    judge = RewardJudge(backend, replace(config.reward, completion_format=data.completion_format))
    rewards = TrlRewards(judge, data.tasks, correction_bonus=config.feedback.correction_bonus)
    trainer = build_grpo_trainer(RunSetup(config, run_dir, model, data, rewards))
    assert isinstance(trainer.rollout_func, FeedbackRollout)
    return trainer, [row["prompt"] for row in data.rows], data


def _runs(mask: list[int]) -> list[tuple[int, int, int]]:
    """(start, end, value) of each run of equal values in an env_mask."""
    runs: list[tuple[int, int, int]] = []
    for index, value in enumerate(mask):
        if runs and runs[-1][2] == value:
            runs[-1] = (runs[-1][0], index + 1, value)
        else:
            runs.append((index, index + 1, value))
    return runs


def _check_episodes(output: dict[str, Any], budget: EpisodeBudget, turns: int) -> None:
    for completion, mask in zip(output["completion_ids"], output["env_mask"], strict=True):
        assert len(mask) == len(completion) <= budget.total
        attempts = [r for r in _runs(mask) if r[2] == 1]
        assert all(end - start <= budget.attempt for start, end, _ in attempts)
        assert len(attempts) <= turns
    assert output[TURNS_FIELD] == [len([r for r in _runs(m) if r[2] == 1]) for m in output["env_mask"]]


def test_completion_style_feedback_restates_the_starter_the_next_attempt_continues(
    tiny_model_path: str, local_backend: Any, tmp_path: Path
) -> None:
    config = small_config(
        tiny_model_path,
        tmp_path,
        feedback={"turns": 3, "feedback_tokens": 256},
        trl={"max_completion_length": 3 * 24 + 2 * 256},
    )
    trainer, prompts, data = _trainer(config, tmp_path, tiny_model_path, local_backend)
    tokenizer = trainer.processing_class
    output = trainer.rollout_func(prompts, trainer)
    budget = episode_budget(config.feedback, 3 * 24 + 2 * 256, 0, None)
    _check_episodes(output, budget, turns=3)
    assert output["logprobs"] is None  # the transformers path samples no logprobs, as in GRPOTrainer
    retried = 0
    for prompt, completion, mask, turns in zip(
        prompts, output["completion_ids"], output["env_mask"], output[TURNS_FIELD], strict=True
    ):
        task = data.tasks_by_prompt[prompt]
        feedback_runs = [r for r in _runs(mask) if r[2] == 0]
        assert len(feedback_runs) == turns - 1
        for start, end, _ in feedback_runs:
            text = tokenizer.decode(completion[start:end])
            assert text.startswith("\n\n# Feedback on the attempt above:\n# Your solution did not pass")
            assert f"# {CLOSING['completion']}\n" in text and "```" not in text
            # what the next attempt continues is the starter, exactly as in the first turn
            assert text.endswith(task.prefix) and prompt.endswith(task.prefix)
            retried += 1
    assert retried >= len(prompts)  # a random model fails: most episodes retry
    assert output[FIRST_COMPLETION] != output[FINAL_COMPLETION]


def test_chat_style_feedback_is_a_user_turn_asking_for_the_complete_file(
    tiny_model_path: str, local_backend: Any, tmp_path: Path
) -> None:
    config = small_config(
        tiny_model_path,
        tmp_path,
        data={
            "packs": ["basics"],
            "max_tasks": 2,
            "prompt": {"style": "chat", "include_visible_tests": False},
        },
        feedback={"turns": 2, "feedback_tokens": 160},
        trl={"max_completion_length": 2 * 24 + 160},
    )
    trainer, prompts, _ = _trainer(config, tmp_path, tiny_model_path, local_backend)
    output = trainer.rollout_func(prompts, trainer)
    _check_episodes(output, episode_budget(config.feedback, 208, 0, None), turns=2)
    tokenizer = trainer.processing_class
    for completion, mask in zip(output["completion_ids"], output["env_mask"], strict=True):
        for start, end, _ in [r for r in _runs(mask) if r[2] == 0]:
            text = tokenizer.decode(completion[start:end])
            assert text.startswith("<|im_end|>\n<|im_start|>user\nYour solution did not pass")
            assert text.endswith(f"{CLOSING['chat']}<|im_end|>\n<|im_start|>assistant\n")
    # a context window that leaves the prompts less room than max_completion_length: episodes shrink
    window = max(len(ids) for ids in output["prompt_ids"]) + 150
    trainer.model.config.max_position_embeddings = window
    output = trainer.rollout_func(prompts, trainer)
    for prompt_ids, completion in zip(output["prompt_ids"], output["completion_ids"], strict=True):
        assert len(prompt_ids) + len(completion) <= window
    assert 2 in output[TURNS_FIELD]  # still room for feedback


class _TinyVLLMServer:
    """Stands in for the vLLM server behind TRL's VLLMClient (vLLM is not installed here): the same
    `generate` arguments and reply, sampled from the tiny model."""

    def __init__(self, model: Any, eos: int) -> None:
        self.model, self.eos = model, eos
        self.calls: list[dict[str, Any]] = []

    def generate(self, prompts: list[list[int]], features: Any = None, **sampling: Any) -> dict[str, Any]:
        self.calls.append({"rows": len(prompts), **sampling})
        completions, logprobs = [], []
        for ids in prompts:
            for _ in range(sampling["n"]):
                with torch.no_grad():
                    out = self.model.generate(
                        torch.tensor([ids]),
                        do_sample=True,
                        max_new_tokens=sampling["max_tokens"],
                        pad_token_id=self.eos,
                        eos_token_id=self.eos,
                        output_scores=True,
                        return_dict_in_generate=True,
                    )
                    scores = self.model.compute_transition_scores(
                        out.sequences, out.scores, normalize_logits=True
                    )
                sequence = out.sequences[0, len(ids) :].tolist()
                if self.eos in sequence:
                    sequence = sequence[: sequence.index(self.eos) + 1]
                completions.append(sequence)
                logprobs.append([[float(s)] for s in scores[0, : len(sequence)]])
        return {"prompt_ids": prompts, "completion_ids": completions, "logprobs": logprobs}


def test_use_vllm_generates_every_turn_through_trl_vllm_generation(
    tiny_model_path: str, local_backend: Any, tmp_path: Path
) -> None:
    config = small_config(
        tiny_model_path,
        tmp_path,
        feedback={"turns": 2, "feedback_tokens": 256},
        trl={"max_completion_length": 2 * 24 + 256},
    )
    trainer, prompts, _ = _trainer(config, tmp_path, tiny_model_path, local_backend)
    server = _TinyVLLMServer(trainer.model, trainer.processing_class.eos_token_id)

    class ServerModeGeneration(VLLMGeneration):
        """TRL's VLLMGeneration, server mode; only its connection to the server is replaced."""

        def _init_vllm(self) -> None:
            self.vllm_client = server

    trainer.vllm_generation = ServerModeGeneration(
        model=trainer.model,
        accelerator=trainer.accelerator,
        processing_class=trainer.processing_class,
        mode="server",
        max_completion_length=304,
    )
    trainer.use_vllm, trainer.vllm_mode = (
        True,
        "server",
    )  # what GRPOTrainer sets from `trl.use_vllm`, `trl.vllm_mode`
    output = trainer.rollout_func(prompts, trainer)
    _check_episodes(output, episode_budget(config.feedback, 304, 0, None), turns=2)
    # one call per turn, one sample per episode history, each turn with the attempt's budget
    assert [call["rows"] for call in server.calls] == [len(prompts), sum(t == 2 for t in output[TURNS_FIELD])]
    assert all(call["n"] == 1 and call["max_tokens"] == 24 for call in server.calls)
    assert trainer.vllm_generation.max_completion_length == 304  # restored
    # the sampled tokens carry vLLM's logprobs, the feedback tokens 0.0 (masked out of the loss)
    for logprobs, mask in zip(output["logprobs"], output["env_mask"], strict=True):
        assert len(logprobs) == len(mask)
        assert all(lp < 0 for lp, m in zip(logprobs, mask, strict=True) if m == 1)
        assert all(lp == 0.0 for lp, m in zip(logprobs, mask, strict=True) if m == 0)


@pytest.mark.slow
def test_a_process_whose_episodes_ended_keeps_generating_with_the_others(
    tiny_model_path: str, tmp_path: Path
) -> None:
    """Two processes (gloo, CPU): process 0's episodes end after one attempt, process 1's retry. The
    turn's collective steps need both, so process 0 generates throwaway rows instead of stopping."""
    torchrun = Path(sys.executable).with_name("torchrun")
    script = REPO_ROOT / "tests" / "train" / "two_process_rollout.py"
    env = {**os.environ, "PYTHONPATH": str(REPO_ROOT), "OMP_NUM_THREADS": "1"}
    command = [str(torchrun), "--nproc_per_node", "2", str(script), tiny_model_path, str(tmp_path)]
    launched = subprocess.Popen(
        command,
        cwd=REPO_ROOT,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.STDOUT,
        text=True,
        start_new_session=True,
    )
    try:
        log, _ = launched.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        os.killpg(launched.pid, signal.SIGKILL)  # torchrun and both workers
        launched.wait()
        pytest.fail("the two processes hung: one stopped taking part in the turn's collective steps")
    assert launched.returncode == 0, log[-3000:]
    ranks = [json.loads((tmp_path / f"rank{rank}.json").read_text()) for rank in (0, 1)]
    assert ranks[0]["style"] == "completion" and ranks[0]["turns"] == [1, 1]
    assert ranks[1]["style"] == "chat" and ranks[1]["turns"] == [2, 2]
    assert all(length <= 2 * 24 + 120 for rank in ranks for length in rank["lengths"])


# -- end to end ---------------------------------------------------------------------------------------
def test_multi_turn_feedback_with_grpo(tiny_model_path: str, tmp_path: Path) -> None:
    config = small_config(
        tiny_model_path,
        tmp_path,
        "grpo",
        feedback={"turns": 2, "feedback_tokens": 224},
        trl={"max_steps": 1, "max_completion_length": 2 * 16 + 224},
    )
    result = run_training(config)
    assert result.status == "completed"
    samples = [json.loads(line) for line in (tmp_path / "samples.jsonl").read_text().splitlines()]
    # a random model fails every first attempt, so every episode has a second, judged attempt
    assert len(samples) == 2 * 4
    history = json.loads((tmp_path / "checkpoint-1" / "trainer_state.json").read_text())["log_history"]
    logged = {key: value for entry in history for key, value in entry.items()}
    # the rollout judges every attempt, yet the batch rates (the hack-rate stop reads them) are logged
    assert {"codegym/hack_rate", "codegym/pass_rate"} <= set(logged)
    assert logged["completions/max_length"] <= 2 * 16  # model tokens only: feedback is not the model's


def test_a_budget_too_small_for_the_turns_fails_before_training(tiny_model_path: str, tmp_path: Path) -> None:
    # the TRL default max_completion_length (512): TRL's config is built when the config is loaded
    data = {
        k: v for k, v in small_config(tiny_model_path, tmp_path).trl.items() if k != "max_completion_length"
    }
    with pytest.raises(
        ConfigError, match=r"trl\.max_completion_length 512 is too small.* would get 8 tokens.* >= 544"
    ):
        config_from_dict(
            {
                "model": {"name_or_path": tiny_model_path},
                "data": {"packs": ["basics"], "max_tasks": 4, "prompt": {"style": "completion"}},
                "output": {"dir": str(tmp_path), "cache": "memory"},
                "feedback": {"turns": 4, "feedback_tokens": 160},
                "trl": data,
            }
        )
