"""Generation backends shared by evaluation and training: local transformers, vLLM, and any
OpenAI-compatible HTTP endpoint, behind one `Generator` interface."""

from __future__ import annotations

from typing import Any

from codegym.rollout.generation.base import (
    COMPLETION_STOPS,
    ENGINES,
    Completion,
    Engine,
    GenerationError,
    GenerationSetupError,
    Generator,
    SamplingParams,
    apply_stop,
    derive_seed,
)
from codegym.rollout.generation.openai_http import OpenAIGenerator, OpenAISettings
from codegym.rollout.generation.vllm_engine import VLLMSettings

__all__ = [
    "COMPLETION_STOPS",
    "ENGINES",
    "Completion",
    "Engine",
    "GenerationError",
    "GenerationSetupError",
    "Generator",
    "OpenAIGenerator",
    "OpenAISettings",
    "SamplingParams",
    "VLLMSettings",
    "apply_stop",
    "create_generator",
    "derive_seed",
]


def create_generator(engine: str, settings: Any, *, seed: int = 0) -> Generator:
    """Build a generator from its typed settings: TransformersSettings, VLLMSettings or OpenAISettings.

    Heavy imports (torch, transformers, vllm) happen here, not at import time.
    """
    if engine == "transformers":
        from codegym.rollout.generation.hf import TransformersGenerator, TransformersSettings

        if not isinstance(settings, TransformersSettings):
            raise TypeError("the transformers engine takes TransformersSettings")
        return TransformersGenerator(settings)
    if engine == "vllm":
        from codegym.rollout.generation.vllm_engine import VLLMGenerator

        if not isinstance(settings, VLLMSettings):
            raise TypeError("the vllm engine takes VLLMSettings")
        return VLLMGenerator(settings, seed=seed)
    if engine == "openai":
        if not isinstance(settings, OpenAISettings):
            raise TypeError("the openai engine takes OpenAISettings")
        return OpenAIGenerator(settings)
    raise ValueError(f"unknown generation engine {engine!r}; valid: {', '.join(ENGINES)}")
