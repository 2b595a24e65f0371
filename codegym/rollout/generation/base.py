"""The generation interface shared by evaluation and training: prompts in, n completions per prompt out.

A `Generator` turns `Prompt`s (codegym.rollout.prompts) into text. `complete()` returns one
`Completion` per sample, in order, with an `error` set where that one sample could not be generated
(an HTTP endpoint that kept failing); `generate()` returns plain strings and raises instead.
"""

from __future__ import annotations

import abc
import hashlib
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from typing import Any, Literal

from codegym.errors import CodegymError
from codegym.rollout.prompts import Prompt, Style

# EvalPlus-style stops for completion prompts: the function is done once the model starts a script.
COMPLETION_STOPS = ("\nif __name__", "\ndef main(", "\nprint(", "\n```")


class GenerationError(RuntimeError):
    """Generation failed: for a single sample after retries, or (from `generate`) for any sample."""


class GenerationSetupError(CodegymError, GenerationError, ValueError):
    """The generator cannot work at all (missing package, bad model path, rejected API key)."""


@dataclass(frozen=True)
class SamplingParams:
    """How to sample. temperature 0 means greedy decoding (top_p is then ignored)."""

    temperature: float = field(default=0.0, metadata={"help": "Sampling temperature; 0 = greedy."})
    top_p: float = field(default=0.95, metadata={"help": "Nucleus sampling mass."})
    max_new_tokens: int = field(default=512, metadata={"help": "Tokens to generate per sample at most."})
    seed: int = field(default=0, metadata={"help": "Base random seed (batches derive theirs from it)."})
    stop: tuple[str, ...] = field(default=(), metadata={"help": "Cut each completion at the first of these."})

    def __post_init__(self) -> None:
        object.__setattr__(self, "stop", tuple(self.stop))
        if not self.temperature >= 0:
            raise ValueError(f"temperature must be >= 0, got {self.temperature!r}")
        if not 0 < self.top_p <= 1:
            raise ValueError(f"top_p must be in (0, 1], got {self.top_p!r}")
        if not isinstance(self.max_new_tokens, int) or self.max_new_tokens < 1:
            raise ValueError(f"max_new_tokens must be an integer >= 1, got {self.max_new_tokens!r}")
        if any(not isinstance(s, str) or not s for s in self.stop):
            raise ValueError("stop sequences must be non-empty strings")

    @property
    def greedy(self) -> bool:
        return self.temperature == 0

    def to_dict(self) -> dict[str, Any]:
        data = asdict(self)
        data["stop"] = list(self.stop)
        return data


@dataclass(frozen=True)
class Completion:
    """One sample: its text, or (text empty) the error that kept it from being generated."""

    text: str
    error: str | None = None
    finish_reason: str | None = None

    @property
    def ok(self) -> bool:
        return self.error is None


def apply_stop(text: str, stop: Sequence[str]) -> str:
    """Cut `text` at the earliest stop sequence (the stop itself is not kept)."""
    cut = len(text)
    for sequence in stop:
        index = text.find(sequence)
        if index != -1:
            cut = min(cut, index)
    return text[:cut]


def derive_seed(seed: int, *parts: object) -> int:
    """A stable 31-bit seed from a base seed and the identity of a batch (task ids, sample indices)."""
    digest = hashlib.sha256(repr((seed, *parts)).encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


class Generator(abc.ABC):
    """Prompts in, `n` completions per prompt out, in order. Use as a context manager to free memory."""

    name: str = ""
    #: what an `auto` prompt style becomes for this generator
    default_style: Style = "chat"

    @abc.abstractmethod
    def complete(self, prompts: Sequence[Prompt], n: int, params: SamplingParams) -> list[list[Completion]]:
        """`n` Completions per prompt; a sample that failed carries `error` instead of raising."""

    def generate(self, prompts: Sequence[Prompt], n: int, params: SamplingParams) -> list[list[str]]:
        """`n` texts per prompt; raises GenerationError if any sample failed."""
        results = self.complete(prompts, n, params)
        failed = [
            (p.task_id, c.error) for p, row in zip(prompts, results, strict=True) for c in row if not c.ok
        ]
        if failed:
            task_id, error = failed[0]
            raise GenerationError(f"{len(failed)} sample(s) failed; first: {task_id}: {error}")
        return [[c.text for c in row] for row in results]

    def batch_prompts(self, n: int) -> int:
        """How many prompts (with `n` samples each) one `complete` call should carry."""
        return 8

    def describe(self) -> dict[str, Any]:
        """What to record about this generator in a run's parameters."""
        return {"engine": self.name}

    def close(self) -> None:  # noqa: B027 - optional
        """Release the model / connections."""

    def __enter__(self) -> Generator:
        return self

    def __exit__(self, *exc_info: object) -> None:
        self.close()


Engine = Literal["transformers", "vllm", "openai"]
ENGINES: tuple[str, ...] = ("transformers", "vllm", "openai")


def check_prompts(prompts: Sequence[Prompt], n: int) -> None:
    if n < 1:
        raise ValueError(f"n must be >= 1, got {n}")
    for prompt in prompts:
        if prompt.style == "chat" and not prompt.messages:
            raise ValueError(f"{prompt.task_id}: chat prompt without messages")
