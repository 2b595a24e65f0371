"""Multi-turn self-correction for GRPO, through TRL's `rollout_func` hook.

Each episode: generate an attempt; judge it in the sandbox; if it failed and turns remain, append
feedback (status, error, failing test names, the traceback in the model's own files — never the
hidden tests' source) and let the model try again. The completion TRL trains on is the whole
episode, with the feedback tokens masked out of the loss (`env_mask`); the reward functions judge
the final attempt and may credit the improvement over the first (TrlRewards.improvement_credit).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

import torch

from codegym.reward.trl_rewards import FINAL_COMPLETION, FIRST_REWARD, TrlRewards
from codegym.rollout.feedback import feedback_message
from codegym.tasks.model import Task

TURNS_FIELD = "codegym_turns"


def prompt_key(prompt: Any) -> str:
    """A dataset prompt (text or messages) as a lookup key."""
    return prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True)


def _commented(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines())


class FeedbackRollout:
    """A TRL `rollout_func`: returns prompt_ids, completion_ids, logprobs, env_mask and the fields
    the reward functions need (final attempt, first attempt's reward, number of turns)."""

    def __init__(
        self,
        rewards: TrlRewards,
        tasks_by_prompt: dict[str, Task],
        tokenizer: Any,
        *,
        turns: int,
        on_episode: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        self.rewards = rewards
        self.tasks_by_prompt = tasks_by_prompt
        self.tokenizer = tokenizer
        self.turns = turns
        self.on_episode = on_episode

    # -- rendering ---------------------------------------------------------------------------
    def _render(self, prompt: Any) -> str:
        if isinstance(prompt, str):
            return prompt
        return self.tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)

    def _feedback_text(self, prompt: Any, attempt: str, feedback: str, task: Task) -> str:
        """The text between an attempt and the next one, in the prompt's own format."""
        if isinstance(prompt, str):
            notes = _commented(feedback)
            return f"\n\n# Feedback on the attempt above:\n{notes}\n# Corrected version:\n{task.prefix}"
        before = self._render(prompt) + attempt
        messages = [*prompt, {"role": "assistant", "content": attempt}, {"role": "user", "content": feedback}]
        after = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        if not after.startswith(before):
            raise ValueError(
                "the chat template does not render an assistant turn as a prefix of the next turn"
            )
        return after[len(before) :]

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    # -- generation --------------------------------------------------------------------------
    def _generate(
        self, trainer: Any, inputs: list[list[int]], max_new_tokens: int
    ) -> list[tuple[list[int], list[float]]]:
        model = trainer.accelerator.unwrap_model(trainer.model)
        pad = self.tokenizer.pad_token_id
        eos = self.tokenizer.eos_token_id
        width = max(len(ids) for ids in inputs)
        input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in inputs], device=model.device)
        attention = torch.tensor(
            [[0] * (width - len(ids)) + [1] * len(ids) for ids in inputs], device=model.device
        )
        args = trainer.args
        with torch.no_grad():
            output = model.generate(
                input_ids=input_ids,
                attention_mask=attention,
                do_sample=True,
                max_new_tokens=max_new_tokens,
                temperature=args.temperature,
                top_p=args.top_p,
                pad_token_id=pad,
                eos_token_id=eos,
                output_scores=True,
                return_dict_in_generate=True,
            )
            scores = model.compute_transition_scores(output.sequences, output.scores, normalize_logits=True)
        results = []
        for row, sequence in enumerate(output.sequences[:, width:].tolist()):
            length = len(sequence)
            if eos in sequence:
                length = sequence.index(eos) + 1
            results.append((sequence[:length], scores[row, :length].float().tolist()))
        return results

    # -- the rollout -------------------------------------------------------------------------
    def __call__(self, prompts: Sequence[Any], trainer: Any) -> dict[str, Any]:
        tasks = []
        for prompt in prompts:
            task = self.tasks_by_prompt.get(prompt_key(prompt))
            if task is None:
                raise KeyError("a prompt that is not in the training dataset reached the rollout")
            tasks.append(task)
        count = len(prompts)
        per_turn = max(8, int(trainer.args.max_completion_length) // self.turns)
        prompt_ids = [self._encode(self._render(p)) for p in prompts]
        completion_ids: list[list[int]] = [[] for _ in range(count)]
        env_mask: list[list[int]] = [[] for _ in range(count)]
        logprobs: list[list[float]] = [[] for _ in range(count)]
        attempts: list[list[str]] = [[] for _ in range(count)]
        transcript: list[Any] = list(prompts)
        first_reward: list[float | None] = [None] * count
        active = list(range(count))
        for turn in range(self.turns):
            generated = self._generate(trainer, [prompt_ids[i] + completion_ids[i] for i in active], per_turn)
            for i, (ids, scores) in zip(active, generated, strict=True):
                completion_ids[i] += ids
                env_mask[i] += [1] * len(ids)
                logprobs[i] += scores
                attempts[i].append(self.tokenizer.decode(ids, skip_special_tokens=True))
            scored = self.rewards.scored(
                [attempts[i][-1] for i in active],
                task_id=[tasks[i].task_id for i in active],
                prompts=[prompts[i] for i in active],
                trainer_state=trainer.state,
            )
            still_active = []
            for i, sample in zip(active, scored, strict=True):
                if turn == 0:
                    first_reward[i] = sample.breakdown.total
                if sample.breakdown.passed or sample.breakdown.total is None or turn == self.turns - 1:
                    continue
                if completion_ids[i] and completion_ids[i][-1] == self.tokenizer.eos_token_id:
                    # the turn's closing tokens come with the feedback, in the template's own form
                    completion_ids[i].pop()
                    env_mask[i].pop()
                    logprobs[i].pop()
                message = feedback_message(sample.breakdown, sample.result)
                bridge = self._encode(self._feedback_text(transcript[i], attempts[i][-1], message, tasks[i]))
                if not isinstance(transcript[i], str):
                    transcript[i] = [
                        *transcript[i],
                        {"role": "assistant", "content": attempts[i][-1]},
                        {"role": "user", "content": message},
                    ]
                completion_ids[i] += bridge
                env_mask[i] += [0] * len(bridge)
                logprobs[i] += [0.0] * len(bridge)
                still_active.append(i)
            active = still_active
            if not active:
                break
        if self.on_episode is not None:
            self.on_episode([{"task_id": tasks[i].task_id, "attempts": attempts[i]} for i in range(count)])
        return {
            "prompt_ids": prompt_ids,
            "completion_ids": completion_ids,
            "logprobs": logprobs,
            "env_mask": env_mask,
            FINAL_COMPLETION: [a[-1] for a in attempts],
            FIRST_REWARD: first_reward,
            TURNS_FIELD: [len(a) for a in attempts],
        }
