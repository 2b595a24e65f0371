"""Multi-turn self-correction for GRPO, through TRL's `rollout_func` hook.

Each episode: generate an attempt; judge it in the sandbox; if it failed and turns remain, append
feedback (codegym.rollout.feedback: status, error, failing test names, the traceback in the model's
own files — never the hidden tests' source) and let the model try again. The completion TRL trains
on is the whole episode, with the feedback tokens masked out of the loss (`env_mask`). The reward
functions read the first and final attempts (extra columns) and pay the SCoRe-style episode reward
(codegym.reward.trl_rewards.episode_reward), which ranks a first-try pass highest.

Budget: the whole episode (attempts and feedback) fits in `trl.max_completion_length`, and in what
the context window leaves after the prompt. Each attempt has a fixed share; each feedback message
has a reserve plus what earlier attempts left unused, and is cut to fit (EpisodeBudget).

Generation goes where TRL's own goes: with `trl.use_vllm`, through the trainer's `VLLMGeneration`
(TRL has synced the weights before calling the rollout); otherwise through `model.generate` inside
TRL's `unwrap_model_for_generation`, which gathers ZeRO-3 parameters when
`trl.ds3_gather_for_generation` is set (FSDP1: `summon_full_params`), as GRPOTrainer does.
Generation is collective under ZeRO-3 and vLLM server mode, so every process generates the same
number of times with the same number of rows, padding with throwaway rows when its own episodes
ended early.

Tested on CPU (tests/train/test_multiturn.py): the transformers path for real; the vLLM path through
TRL's real VLLMGeneration in server mode with its HTTP client answered by the tiny model, since vLLM
is not installed there. Not tested: a real vLLM engine (colocate mode, a real server) and the
padding across several processes.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import torch

from codegym.reward.trl_rewards import FINAL_COMPLETION, FIRST_COMPLETION, TrlRewards
from codegym.rollout.feedback import MAX_CHARS, Feedback, feedback_for
from codegym.tasks.model import Task
from codegym.train.config import ConfigError, FeedbackConfig

TURNS_FIELD = "codegym_turns"
Generated = tuple[list[list[int]], list[list[float]] | None]


def prompt_key(prompt: Any) -> str:
    """A dataset prompt (text or messages) as a lookup key."""
    return prompt if isinstance(prompt, str) else json.dumps(prompt, sort_keys=True)


def _commented(text: str) -> str:
    return "\n".join(f"# {line}".rstrip() for line in text.splitlines())


@dataclass(frozen=True)
class EpisodeBudget:
    """Tokens of one episode's completion: `turns` attempts of at most `attempt` tokens and, between
    them, feedback with `feedback` tokens reserved each — all within `total`."""

    total: int
    attempt: int
    feedback: int
    turns: int

    def feedback_limit(self, used: int, turn: int) -> int:
        """Most tokens the feedback after attempt `turn` (0-based) may take, `used` tokens into the
        episode: all that is left once later attempts and later feedback keep their shares. At least
        `feedback` when everything before kept to its limit, so the episode never exceeds `total`."""
        later_attempts = self.turns - 1 - turn
        later_feedback = max(0, self.turns - 2 - turn)
        return self.total - used - later_attempts * self.attempt - later_feedback * self.feedback


def episode_budget(
    config: FeedbackConfig, max_completion_length: int, prompt_length: int, window: int | None
) -> EpisodeBudget:
    """The budget of an episode whose prompt has `prompt_length` tokens, in a context `window` (None:
    unbounded). When the prompt leaves less room than max_completion_length, attempts and feedback
    shrink in proportion."""
    total, feedback = max_completion_length, config.feedback_tokens
    attempt = config.attempt_tokens(max_completion_length)
    room = None if window is None else window - prompt_length
    if room is not None and room < total:
        room = max(1, room)
        attempt, feedback = max(1, attempt * room // total), feedback * room // total
        total = room
    return EpisodeBudget(total=total, attempt=attempt, feedback=feedback, turns=config.turns)


@dataclass
class Episode:
    prompt: Any  # the dataset prompt: text (completion style) or messages (chat style)
    task: Task
    prompt_ids: list[int]
    budget: EpisodeBudget
    transcript: Any = None  # chat style: the messages so far
    completion_ids: list[int] = field(default_factory=list)
    env_mask: list[int] = field(default_factory=list)
    logprobs: list[float] = field(default_factory=list)
    attempts: list[str] = field(default_factory=list)
    open: bool = True

    @property
    def completion_style(self) -> bool:
        return isinstance(self.prompt, str)

    def add(self, ids: list[int], logprobs: list[float] | None, *, model: bool) -> None:
        self.completion_ids += ids
        self.env_mask += [int(model)] * len(ids)
        self.logprobs += logprobs if logprobs is not None else [0.0] * len(ids)

    def drop_last_token(self) -> None:
        del self.completion_ids[-1], self.env_mask[-1], self.logprobs[-1]


def _agree(accelerator: Any, values: list[int]) -> list[int]:
    """The element-wise maximum over all processes (the values themselves in one process)."""
    local = torch.tensor(values, device=accelerator.device)
    gathered = accelerator.gather(local.unsqueeze(0)).view(-1, len(values))
    return [int(v) for v in gathered.max(dim=0).values.tolist()]


def _context_window(trainer: Any) -> int | None:
    """How many tokens prompt and completion may hold together, read as GRPOTrainer's tool loop reads
    it: colocated vLLM's engine limit, else the model's position limit."""
    if trainer.use_vllm and trainer.vllm_mode == "colocate":
        return int(trainer.vllm_generation.llm.llm_engine.model_config.max_model_len)
    config = trainer.accelerator.unwrap_model(trainer.model).config
    config = config.get_text_config() if hasattr(config, "get_text_config") else config  # a VLM's text model
    window = getattr(config, "max_position_embeddings", None)
    return int(window) if window else None


def generate_with_vllm(trainer: Any, contexts: list[list[int]], max_tokens: int) -> Generated:
    """One turn through TRL's VLLMGeneration (colocate or server): one sample per context, since each
    context is its own episode's history. Its `max_completion_length` is the turn's budget for this
    call only."""
    generation = trainer.vllm_generation
    saved = generation.max_completion_length
    generation.max_completion_length = max_tokens
    try:
        _, completion_ids, logprobs, _ = generation.generate(prompts=contexts, images=None, num_generations=1)
    finally:
        generation.max_completion_length = saved
    # vLLM returns top-k logprobs per token; the sampled token's is first (as in GRPOTrainer)
    return [list(ids) for ids in completion_ids], [[lp[0] for lp in seq] for seq in logprobs]


def generate_with_transformers(trainer: Any, contexts: list[list[int]], max_tokens: int) -> Generated:
    """One turn through `model.generate`, the way GRPOTrainer's transformers path does it: its
    generation config (with this turn's budget), inside `unwrap_model_for_generation` (ZeRO-3
    parameter gathering per `ds3_gather_for_generation`) and FSDP1's `summon_full_params`."""
    from trl.distributed import DistributedBackend
    from trl.models import unwrap_model_for_generation

    tokenizer = trainer.processing_class
    tokenizer = getattr(tokenizer, "tokenizer", tokenizer)  # a processor wraps its tokenizer
    pad, eos = tokenizer.pad_token_id, tokenizer.eos_token_id
    width = max(len(ids) for ids in contexts)
    device = trainer.accelerator.device
    input_ids = torch.tensor([[pad] * (width - len(ids)) + ids for ids in contexts], device=device)
    attention = torch.tensor([[0] * (width - len(ids)) + [1] * len(ids) for ids in contexts], device=device)
    config = copy.deepcopy(trainer.generation_config)
    config.max_new_tokens = max_tokens
    with (
        unwrap_model_for_generation(
            trainer.model_wrapped,
            trainer.accelerator,
            gather_deepspeed3_params=trainer.args.ds3_gather_for_generation,
            generation_kwargs=trainer.generation_kwargs,
        ) as model,
        torch.no_grad(),
        DistributedBackend(trainer.accelerator).summon_full_params(trainer.model_wrapped, recurse=False),
    ):
        output = model.generate(input_ids=input_ids, attention_mask=attention, generation_config=config)
    results = []
    for sequence in output[:, width:].tolist():
        if eos in sequence:
            sequence = sequence[: sequence.index(eos) + 1]
        results.append(sequence)
    return results, None  # like GRPOTrainer's transformers path: no sampling logprobs


class FeedbackRollout:
    """A TRL `rollout_func`: returns prompt_ids, completion_ids, logprobs, env_mask and the fields
    the reward functions need (first and final attempts, number of turns)."""

    def __init__(
        self,
        rewards: TrlRewards,
        tasks_by_prompt: dict[str, Task],
        tokenizer: Any,
        config: FeedbackConfig,
        *,
        max_completion_length: int | None,
        on_episode: Callable[[list[dict[str, Any]]], None] | None = None,
    ) -> None:
        if not isinstance(max_completion_length, int):
            raise ConfigError(
                "trl.max_completion_length: multi-turn feedback needs a token budget, "
                f"got {max_completion_length!r}"
            )
        try:
            config.attempt_tokens(max_completion_length)
        except ValueError as exc:
            raise ConfigError(str(exc)) from exc
        self.rewards = rewards
        self.tasks_by_prompt = tasks_by_prompt
        self.tokenizer = tokenizer
        self.config = config
        self.max_completion_length = max_completion_length
        self.on_episode = on_episode

    # -- rendering ---------------------------------------------------------------------------
    def _render(self, prompt: Any) -> str:
        if isinstance(prompt, str):
            return prompt
        return self.tokenizer.apply_chat_template(prompt, add_generation_prompt=True, tokenize=False)

    def _feedback_text(self, episode: Episode, message: str) -> str:
        """The text between the last attempt and the next one, in the prompt's own format. Completion
        style: the feedback as comments, then the starter again, which the next attempt continues."""
        attempt = episode.attempts[-1]
        if episode.completion_style:
            return f"\n\n# Feedback on the attempt above:\n{_commented(message)}\n{episode.task.prefix}"
        before = self._render(episode.transcript) + attempt
        messages = [
            *episode.transcript,
            {"role": "assistant", "content": attempt},
            {"role": "user", "content": message},
        ]
        after = self.tokenizer.apply_chat_template(messages, add_generation_prompt=True, tokenize=False)
        if not after.startswith(before):
            raise ValueError(
                "the chat template does not render an assistant turn as a prefix of the next turn"
            )
        return after[len(before) :]

    def _encode(self, text: str) -> list[int]:
        return list(self.tokenizer(text, add_special_tokens=False)["input_ids"])

    def fit_feedback(self, episode: Episode, feedback: Feedback, limit: int) -> tuple[list[int], str] | None:
        """The feedback's tokens (and message) in at most `limit` tokens, the message's details cut as
        little as fits; None when not even the shortest message fits."""

        def encode(chars: int) -> tuple[list[int], str] | None:
            message = feedback.render(chars)
            return None if message is None else (self._encode(self._feedback_text(episode, message)), message)

        full = encode(MAX_CHARS)
        if full is not None and len(full[0]) <= limit:
            return full
        shortest = encode(feedback.min_chars)
        if shortest is None or len(shortest[0]) > limit:
            return None
        low, high = feedback.min_chars, MAX_CHARS  # encode(low) fits, encode(high) does not
        best = shortest
        while high - low > 1:
            middle = (low + high) // 2
            candidate = encode(middle)
            if candidate is not None and len(candidate[0]) <= limit:
                low, best = middle, candidate
            else:
                high = middle
        return best

    # -- generation --------------------------------------------------------------------------
    def _generate_turn(
        self, trainer: Any, episodes: list[Episode], filler: list[int]
    ) -> list[tuple[list[int], list[float] | None]] | None:
        """This turn's attempts of `episodes`; None once no process has an open episode. Every process
        calls the engine with as many rows as the busiest one (padding with `filler`, whose output is
        thrown away) and the longest budget: ZeRO-3 generation and vLLM's server path are collective."""
        longest = max((e.budget.attempt for e in episodes), default=1)
        rows, max_tokens = _agree(trainer.accelerator, [len(episodes), longest])
        if rows == 0:
            return None
        contexts = [e.prompt_ids + e.completion_ids for e in episodes]
        contexts += [filler] * (rows - len(contexts))
        generate = generate_with_vllm if trainer.use_vllm else generate_with_transformers
        completion_ids, logprobs = generate(trainer, contexts, max_tokens)
        results = []
        for index, episode in enumerate(episodes):
            limit = episode.budget.attempt  # the shared call may have allowed more
            ids = completion_ids[index][:limit]
            results.append((ids, None if logprobs is None else logprobs[index][:limit]))
        return results

    # -- the rollout -------------------------------------------------------------------------
    def _episodes(self, prompts: Sequence[Any], trainer: Any) -> list[Episode]:
        window = _context_window(trainer)
        episodes = []
        for prompt in prompts:
            task = self.tasks_by_prompt.get(prompt_key(prompt))
            if task is None:
                raise KeyError("a prompt that is not in the training dataset reached the rollout")
            prompt_ids = self._encode(self._render(prompt))
            budget = episode_budget(self.config, self.max_completion_length, len(prompt_ids), window)
            transcript = None if isinstance(prompt, str) else list(prompt)
            episodes.append(Episode(prompt, task, prompt_ids, budget, transcript))
        return episodes

    def _continue(self, episode: Episode, sample: Any, turn: int) -> bool:
        """Append feedback and keep the episode open for another attempt, when it should have one."""
        breakdown = sample.breakdown
        if breakdown.passed or breakdown.total is None or turn == self.config.turns - 1:
            return False
        eos = self.tokenizer.eos_token_id
        ends_turn = bool(episode.completion_ids) and episode.completion_ids[-1] == eos
        used = len(episode.completion_ids) - ends_turn  # the turn's end comes with the feedback instead
        style = "completion" if episode.completion_style else "chat"
        fitted = self.fit_feedback(
            episode,
            feedback_for(breakdown, sample.result, style=style),
            episode.budget.feedback_limit(used, turn),
        )
        if fitted is None:
            return False  # no room left for feedback: the episode ends with this attempt
        ids, message = fitted
        if ends_turn:
            episode.drop_last_token()
        if episode.transcript is not None:
            episode.transcript += [
                {"role": "assistant", "content": episode.attempts[-1]},
                {"role": "user", "content": message},
            ]
        episode.add(ids, None, model=False)
        return True

    def __call__(self, prompts: Sequence[Any], trainer: Any) -> dict[str, Any]:
        episodes = self._episodes(prompts, trainer)
        filler = episodes[0].prompt_ids
        for turn in range(self.config.turns):
            active = [e for e in episodes if e.open]
            generated = self._generate_turn(trainer, active, filler)
            if generated is None:
                break
            for episode, (ids, logprobs) in zip(active, generated, strict=True):
                episode.add(ids, logprobs, model=True)
                episode.attempts.append(self.tokenizer.decode(ids, skip_special_tokens=True))
            if not active:
                continue  # this process only helped the others generate
            scored = self.rewards.scored(
                [e.attempts[-1] for e in active],
                task_id=[e.task.task_id for e in active],
                prompts=[e.prompt for e in active],
                trainer_state=trainer.state,
            )
            for episode, sample in zip(active, scored, strict=True):
                episode.open = self._continue(episode, sample, turn)
        if self.on_episode is not None:
            self.on_episode([{"task_id": e.task.task_id, "attempts": e.attempts} for e in episodes])
        return {
            "prompt_ids": [e.prompt_ids for e in episodes],
            "completion_ids": [e.completion_ids for e in episodes],
            "logprobs": [e.logprobs for e in episodes] if trainer.use_vllm else None,
            "env_mask": [e.env_mask for e in episodes],
            FINAL_COMPLETION: [e.attempts[-1] for e in episodes],
            FIRST_COMPLETION: [e.attempts[0] for e in episodes],
            TURNS_FIELD: [len(e.attempts) for e in episodes],
        }
