"""An evaluation run as one call: `evaluate(job, ...)` — the orchestration behind `codegym eval`.

The caller (the CLI) checks its flags, takes the output folder's lock and loads the pack and the
reward config; `evaluate` then opens a `JudgeSession` (stores and backend: a bad cache fails before
any model loads), makes the generator (for a model), plans the prompts (as the model was trained
when its folder says so), judges everything through the session's reward judge, closes all of it
however the run ends, and records the run in the results database. The environment is never read
here (an API key arrives in `GenerationRequest`).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from codegym.eval.runs import EvalOutcome, EvalProgress, GenerationPlan, run_eval
from codegym.reward.session import JudgeSession, JudgingOptions
from codegym.tasks.model import TaskPack


@dataclass(frozen=True)
class GenerationRequest:
    """How to sample from a model (None fields take the documented defaults)."""

    model: str
    engine: str = "transformers"
    n_samples: int = 1
    temperature: float | None = None  # None: 0 (greedy) for one sample, else 0.8
    top_p: float = 0.95
    max_new_tokens: int = 512
    seed: int = 0
    stop: tuple[str, ...] = ()
    prompt_style: str = "auto"  # auto: as trained (codegym.json), else the engine's default style
    device: str = "auto"
    dtype: str = "auto"
    batch_size: int = 8
    api_base: str | None = None
    api_key: str | None = None
    concurrency: int = 8
    max_retries: int = 5
    request_timeout_s: float = 120.0
    limit: int | None = None

    @property
    def sampling_temperature(self) -> float:
        if self.temperature is not None:
            return self.temperature
        return 0.0 if self.n_samples == 1 else 0.8


@dataclass(frozen=True)
class EvalJob:
    """What to evaluate and where the results go."""

    pack: TaskPack
    out_dir: Path
    ks: Sequence[int]
    samples_file: Path | None = None  # a samples file, or
    generation: GenerationRequest | None = None  # a model to sample from
    label: str | None = None
    rejudge: bool = False
    database_url: str | None = None  # record the run there (None: not recorded)


@dataclass(frozen=True)
class EvalReport:
    outcome: EvalOutcome
    recorded: bool | None  # None: no database; False: the run was already recorded


def evaluate(
    job: EvalJob,
    judging: JudgingOptions,
    *,
    progress: EvalProgress | None = None,
    notice: Callable[[str], None] = lambda _line: None,
) -> EvalReport:
    """Run `job` (the output folder must already be the caller's: see `runs.eval_output`), judged as
    `judging` says (its `reward` is required). The backend, the stores and the generator are closed
    when it ends, however it ends."""
    if judging.reward is None:
        raise ValueError("evaluate needs a reward config (JudgingOptions.reward)")
    trained = trained_prompt(job.generation) if job.generation is not None else None  # before any load
    with JudgeSession(judging) as session:
        assert session.judge is not None  # a reward config was given
        generator = None
        try:
            plan = None
            if job.generation is not None:
                generator = make_generator(job.generation)
                plan = plan_generation(job.generation, generator, trained, notice)
            outcome = run_eval(
                pack=job.pack,
                out_dir=job.out_dir,
                ks=list(job.ks),
                backend=session.backend,
                reward=session.judge,
                generator=generator,
                plan=plan,
                samples_file=job.samples_file,
                label=job.label,
                rejudge=job.rejudge,
                locked=True,
                progress=progress or EvalProgress(),
            )
        finally:
            if generator is not None:
                generator.close()
    recorded = None
    if job.database_url is not None:
        from codegym.eval.results_db import ResultsDB

        with ResultsDB(job.database_url) as database:
            recorded = database.record(outcome.results, outcome.samples, out_dir=str(job.out_dir.resolve()))
    return EvalReport(outcome, recorded)


def make_generator(request: GenerationRequest) -> Any:
    from codegym.rollout.generation import OpenAISettings, VLLMSettings, create_generator

    if request.engine == "openai":
        settings: Any = OpenAISettings(
            api_base=request.api_base or "",
            model=request.model,
            api_key=request.api_key,
            concurrency=request.concurrency,
            max_retries=request.max_retries,
            timeout_s=request.request_timeout_s,
        )
    elif request.engine == "vllm":
        settings = VLLMSettings(model=request.model, dtype=request.dtype)
    else:
        from codegym.rollout.generation.hf import TransformersSettings

        settings = TransformersSettings(
            model=request.model, device=request.device, dtype=request.dtype, batch_size=request.batch_size
        )
    return create_generator(request.engine, settings, seed=request.seed)


def trained_prompt(request: GenerationRequest) -> Any:
    """The prompt settings a codegym-trained model was trained with (its folder's codegym.json),
    when the style is `auto`; None otherwise."""
    from codegym.eval.model_info import recorded_prompt

    if request.prompt_style != "auto" or request.engine == "openai":
        return None
    return recorded_prompt(request.model)


def plan_generation(
    request: GenerationRequest, generator: Any, trained: Any, notice: Callable[[str], None]
) -> GenerationPlan:
    """Prompts as trained (`trained`, from `trained_prompt`), else the requested or the engine's
    default style; EvalPlus's stops for completion prompts."""
    from codegym.eval.model_info import MODEL_INFO_FILE
    from codegym.rollout.generation import COMPLETION_STOPS, SamplingParams
    from codegym.rollout.prompts import PromptConfig

    if trained is not None:
        prompt = trained
        notice(
            f"prompts: {prompt.style}, visible tests {'on' if prompt.include_visible_tests else 'off'} "
            f"(as trained, from {Path(request.model) / MODEL_INFO_FILE})"
        )
    else:
        style = generator.default_style if request.prompt_style == "auto" else request.prompt_style
        prompt = PromptConfig(style=style)
    stops = request.stop or (COMPLETION_STOPS if prompt.style == "completion" else ())
    sampling = SamplingParams(
        temperature=request.sampling_temperature,
        top_p=request.top_p,
        max_new_tokens=request.max_new_tokens,
        seed=request.seed,
        stop=tuple(stops),
    )
    return GenerationPlan(
        model=request.model,
        engine=request.engine,
        n_samples=request.n_samples,
        sampling=sampling,
        prompt=prompt,
        limit=request.limit,
        engine_info=generator.describe(),
    )
