"""Generation with vLLM (GPU): only when `import vllm` works; otherwise a clear setup error."""

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
)
from codegym.rollout.prompts import Prompt


@dataclass(frozen=True)
class VLLMSettings:
    model: str = field(metadata={"help": "Model directory (or hub id when a hub is reachable)."})
    dtype: str = field(default="auto", metadata={"help": "auto, float16, bfloat16 or float32."})
    tensor_parallel_size: int = field(default=1, metadata={"help": "GPUs to shard the model over."})
    gpu_memory_utilization: float = field(
        default=0.85, metadata={"help": "Fraction of GPU memory vLLM may take."}
    )
    max_model_len: int | None = field(default=None, metadata={"help": "Context length (None: the model's)."})
    trust_remote_code: bool = field(default=False, metadata={"help": "Allow the model's own code."})
    batch_prompts: int = field(
        default=256, metadata={"help": "Prompts per call (vLLM schedules them itself)."}
    )


def import_vllm() -> Any:
    try:
        import vllm
    except ImportError as exc:
        raise GenerationSetupError(
            f"the vllm engine needs the vllm package ({exc}); install it on a CUDA machine "
            "(pip install vllm) or use ",
            Setting("engine", "transformers"),
        ) from exc
    return vllm


class VLLMGenerator(Generator):
    name = "vllm"

    def __init__(self, settings: VLLMSettings, *, seed: int = 0) -> None:
        self.settings = settings
        self._vllm = import_vllm()
        options: dict[str, Any] = {
            "model": settings.model,
            "dtype": settings.dtype,
            "tensor_parallel_size": settings.tensor_parallel_size,
            "gpu_memory_utilization": settings.gpu_memory_utilization,
            "trust_remote_code": settings.trust_remote_code,
            "seed": seed,
        }
        if settings.max_model_len:
            options["max_model_len"] = settings.max_model_len
        self.llm = self._vllm.LLM(**options)
        tokenizer = self.llm.get_tokenizer()
        self.default_style = "chat" if getattr(tokenizer, "chat_template", None) else "completion"

    def describe(self) -> dict[str, Any]:
        return {"engine": self.name, "dtype": self.settings.dtype}

    def batch_prompts(self, n: int) -> int:
        return self.settings.batch_prompts

    def complete(self, prompts: Sequence[Prompt], n: int, params: SamplingParams) -> list[list[Completion]]:
        check_prompts(prompts, n)
        sampling = self._vllm.SamplingParams(
            n=n,
            temperature=params.temperature,
            top_p=1.0 if params.greedy else params.top_p,
            max_tokens=params.max_new_tokens,
            seed=params.seed,
            stop=list(params.stop) or None,
        )
        outputs: list[Any] = [None] * len(prompts)
        chat = [i for i, p in enumerate(prompts) if p.style == "chat"]
        plain = [i for i, p in enumerate(prompts) if p.style != "chat"]
        if chat:
            conversations = [[dict(m) for m in prompts[i].messages] for i in chat]
            for index, output in zip(
                chat, self.llm.chat(conversations, sampling, use_tqdm=False), strict=True
            ):
                outputs[index] = output
        if plain:
            texts = [prompts[i].text for i in plain]
            for index, output in zip(plain, self.llm.generate(texts, sampling, use_tqdm=False), strict=True):
                outputs[index] = output
        return [
            [Completion(apply_stop(o.text, params.stop), finish_reason=o.finish_reason) for o in out.outputs]
            for out in outputs
        ]

    def close(self) -> None:
        self.llm = None
