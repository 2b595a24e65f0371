"""Local generation with transformers: a model directory (or an already loaded model), CPU or GPU,
batched `generate`, the tokenizer's chat template for chat prompts."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any

from codegym.errors import Setting
from codegym.rollout.generation.base import (
    Completion,
    GenerationSetupError,
    Generator,
    SamplingParams,
    apply_stop,
    check_prompts,
    derive_seed,
)
from codegym.rollout.prompts import Prompt

DTYPES = ("auto", "float32", "bfloat16", "float16")


@dataclass(frozen=True)
class TransformersSettings:
    model: str = field(metadata={"help": "Model directory (or hub id when a hub is reachable)."})
    device: str = field(
        default="auto", metadata={"help": "auto (cuda when available), cpu, cuda, cuda:1, ..."}
    )
    dtype: str = field(default="auto", metadata={"help": "auto, float32, bfloat16 or float16."})
    batch_size: int = field(default=8, metadata={"help": "Sequences (prompts x samples) per generate call."})
    trust_remote_code: bool = field(default=False, metadata={"help": "Allow the model's own code."})

    def __post_init__(self) -> None:
        if self.dtype not in DTYPES:
            raise ValueError(f"dtype must be one of {', '.join(DTYPES)}, got {self.dtype!r}")
        if self.batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {self.batch_size}")


class TransformersGenerator(Generator):
    """Pass `model`/`tokenizer` to generate with objects already in memory (e.g. a trainer's policy)."""

    name = "transformers"

    def __init__(self, settings: TransformersSettings, *, model: Any = None, tokenizer: Any = None) -> None:
        import torch

        self.settings = settings
        self._torch = torch
        if tokenizer is None:
            tokenizer = self._load_tokenizer(settings)
        if model is None:
            model = self._load_model(settings)
        self.tokenizer = tokenizer
        self.model = model
        self.model.eval()
        if self.tokenizer.pad_token_id is None:
            self.tokenizer.pad_token = self.tokenizer.eos_token
        self.default_style = "chat" if getattr(self.tokenizer, "chat_template", None) else "completion"

    @staticmethod
    def _load_tokenizer(settings: TransformersSettings) -> Any:
        from transformers import AutoTokenizer

        try:
            return AutoTokenizer.from_pretrained(settings.model, trust_remote_code=settings.trust_remote_code)
        except (OSError, ValueError) as exc:
            raise GenerationSetupError(f"cannot load a tokenizer from {settings.model!r}: {exc}") from exc

    def _load_model(self, settings: TransformersSettings) -> Any:
        from transformers import AutoModelForCausalLM

        torch = self._torch
        device = settings.device
        if device == "auto":
            device = "cuda" if torch.cuda.is_available() else "cpu"
        dtype: Any = "auto" if settings.dtype == "auto" else getattr(torch, settings.dtype)
        if dtype == "auto" and device == "cpu":
            dtype = torch.float32  # half precision on CPU is slow or unsupported
        try:
            model = AutoModelForCausalLM.from_pretrained(
                settings.model, dtype=dtype, trust_remote_code=settings.trust_remote_code
            )
        except (OSError, ValueError) as exc:
            raise GenerationSetupError(f"cannot load a causal LM from {settings.model!r}: {exc}") from exc
        return model.to(device)

    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, "dtype": self.settings.dtype, "batch_size": self.settings.batch_size}

    def batch_prompts(self, n: int) -> int:
        return max(1, self.settings.batch_size // max(1, n))

    def render(self, prompt: Prompt) -> str:
        if prompt.style == "completion":
            return prompt.text
        if not getattr(self.tokenizer, "chat_template", None):
            raise GenerationSetupError(
                f"{self.settings.model}: the tokenizer has no chat template; use ",
                Setting("prompt_style", "completion"),
            )
        return self.tokenizer.apply_chat_template(
            [dict(m) for m in prompt.messages], tokenize=False, add_generation_prompt=True
        )

    def complete(self, prompts: Sequence[Prompt], n: int, params: SamplingParams) -> list[list[Completion]]:
        check_prompts(prompts, n)
        results: list[list[Completion]] = []
        step = self.batch_prompts(n)
        for start in range(0, len(prompts), step):
            results.extend(self._complete_batch(prompts[start : start + step], n, params))
        return results

    def _complete_batch(
        self, prompts: Sequence[Prompt], n: int, params: SamplingParams
    ) -> list[list[Completion]]:
        torch = self._torch
        texts = [self.render(p) for p in prompts]
        self.tokenizer.padding_side = "left"
        encoded = self.tokenizer(texts, return_tensors="pt", padding=True, add_special_tokens=False)
        encoded = {k: v.to(self.model.device) for k, v in encoded.items()}
        # greedy decoding gives one answer; sampling draws n, seeded by the batch's identity
        draws = 1 if params.greedy else n
        kwargs: dict[str, Any] = {
            "max_new_tokens": params.max_new_tokens,
            "num_return_sequences": draws,
            "pad_token_id": self.tokenizer.pad_token_id,
            "do_sample": not params.greedy,
        }
        if params.greedy:
            kwargs.update(temperature=None, top_p=None, top_k=None)
        else:
            kwargs.update(temperature=params.temperature, top_p=params.top_p, top_k=0)
        if params.stop:
            kwargs.update(stop_strings=list(params.stop), tokenizer=self.tokenizer)
        torch.manual_seed(derive_seed(params.seed, [p.task_id for p in prompts], n))
        with torch.no_grad():
            output = self.model.generate(**encoded, **kwargs)
        prompt_length = encoded["input_ids"].shape[1]
        eos = self.tokenizer.eos_token_id
        results: list[list[Completion]] = []
        for index in range(len(prompts)):
            row = []
            for draw in range(draws):
                tokens = output[index * draws + draw, prompt_length:]
                text = self.tokenizer.decode(tokens, skip_special_tokens=True)
                cut = apply_stop(text, params.stop)
                hit_eos = eos is not None and bool((tokens == eos).any())
                reason = "stop" if hit_eos or cut != text else "length"
                row.append(Completion(cut, finish_reason=reason))
            results.append(row * n if draws == 1 else row)
        return results

    def close(self) -> None:
        self.model = None
        if self._torch.cuda.is_available():
            self._torch.cuda.empty_cache()
