"""`codegym train`: config in, a trained policy, checkpoints, logs, samples and a plot out."""

from __future__ import annotations

import contextlib
import json
import time
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any

from codegym.reward.session import JudgeSession, JudgingOptions
from codegym.reward.trl_rewards import TrlRewards
from codegym.tasks.registry import TaskRegistry
from codegym.train.callbacks import (
    AdaptiveLR,
    StabilityMonitor,
    TrainingHalted,
    kl_alarm_notice,
    live_callback,
    log_callback_metrics,
    restore_callback_states,
)
from codegym.train.checkpoints import SealCheckpoints, finished_step, resolve_resume
from codegym.train.config import TrainConfig
from codegym.train.data import build_training_data
from codegym.train.logs import library_output_to_log
from codegym.train.model_setup import base_model_path, export_final_model, sft_warmup
from codegym.train.plot import plot_rewards
from codegym.train.preflight import (
    check_model_source,
    check_run_dir,
    check_writable_dir,
    clear_run_dir,
    run_lock,
)
from codegym.train.profile import StepProfiler
from codegym.train.progress import progress_callback, quiet_default_printers
from codegym.train.samples import SampleLog
from codegym.train.setup import RunSetup

BUILDERS = {
    "grpo": "codegym.train.grpo:build_grpo_trainer",
    "rloo": "codegym.train.rloo:build_rloo_trainer",
    "ppo": "codegym.train.ppo:build_ppo_trainer",
}


@dataclass
class TrainResult:
    status: str  # completed | halted
    run_dir: Path
    steps: int
    message: str = ""
    resumed_from: str | None = None
    metrics: dict[str, Any] = field(default_factory=dict)
    plot: str | None = None
    main_process: bool = True  # False on the other ranks of a multi-process run (they stay quiet)


def _builder(algorithm: str) -> Any:
    import importlib

    module, _, name = BUILDERS[algorithm].partition(":")
    return getattr(importlib.import_module(module), name)


def _silent(*_: Any) -> None:
    return None


def _local_processes(processes: Any) -> int:
    """Training processes on this machine: torchrun/accelerate say so in LOCAL_WORLD_SIZE; a
    single-machine run has them all here."""
    import os

    return int(os.environ.get("LOCAL_WORLD_SIZE", processes.num_processes))


def default_sandbox_workers(local_processes: int) -> int:
    """The sandbox's default worker count (one per usable CPU), shared among the training processes
    on this machine (each process judges its own share of the batch in its own pool)."""
    from codegym.sandbox.local import default_worker_count

    return max(1, default_worker_count() // max(1, local_processes))


def _write_run_config(run_dir: Path, config: TrainConfig, data: Any, reward_config: Any) -> None:
    (run_dir / "config.json").write_text(
        json.dumps(
            {
                "algorithm": config.algorithm,
                "source": config.source,
                "packs": data.packs,
                "tasks": len(data.rows),
                "reward": reward_config.to_dict(),
                "trl": config.trl,
                "feedback": asdict(config.feedback),
            },
            indent=2,
            default=str,
        )
    )


def _finished_result(run_dir: Path, step: int, checkpoint: Path, main_process: bool) -> TrainResult:
    """A resumed run that had already finished: its own summary, nothing trained."""
    try:
        previous = json.loads((run_dir / "summary.json").read_text(encoding="utf-8"))
    except (OSError, ValueError):
        previous = {}
    return TrainResult(
        status="completed",
        run_dir=run_dir,
        steps=step,
        message="already finished",
        resumed_from=str(checkpoint),
        metrics=previous.get("metrics", {}),
        plot=previous.get("plot"),
        main_process=main_process,
    )


def _evaluate_learning(
    config: TrainConfig, data: Any, backend: Any, start_model: str, run_dir: Path, log: Any
):
    """pass@1 of the model RL started from (the SFT model, or the base) and of the final model."""
    from codegym.train.learning import SamplingSettings, evaluate_learning

    settings = config.evaluation
    length = settings.max_new_tokens or int(
        config.trl.get("max_completion_length") or config.trl.get("response_length") or 256
    )
    log(
        f"evaluating pass@1 before and after RL: {settings.samples_per_task} samples per training task "
        f"at T={settings.temperature}"
    )
    report = evaluate_learning(
        start_model,
        str(run_dir / "final-model"),
        list(data.tasks.values()),
        backend,
        SamplingSettings(
            samples_per_task=settings.samples_per_task,
            temperature=settings.temperature,
            max_new_tokens=length,
            seed=settings.seed,
            prompt=config.data.prompt,
        ),
    )
    (run_dir / "learning.json").write_text(json.dumps(report.to_dict(), indent=2))
    log(report.describe())
    return report


def _read_inputs(config: TrainConfig) -> list[Path]:
    """Local paths the run reads, which `overwrite` must not delete."""
    candidates = [config.model.name_or_path, config.ppo.value_model, *config.data.tasks_dirs]
    return [Path(c) for c in candidates if c not in ("tiny", "policy") and Path(c).exists()]


def run_training(
    config: TrainConfig,
    *,
    resume: str | None = None,
    overwrite: bool = False,
    log: Any = print,
    extra_callbacks: list[Any] | None = None,
) -> TrainResult:
    """Train; `resume` is None, "auto" or a checkpoint path; `overwrite` first deletes what an earlier
    run wrote in the run directory (without it, a new run needs an empty or absent one).
    `extra_callbacks` are TRL/transformers TrainerCallbacks added after codegym's own."""
    run_dir = config.output_dir
    # what can be checked without loading anything is checked first (and by every process, before
    # any of them writes): a run directory that cannot be used, a model that cannot be had
    check_writable_dir(run_dir)
    model_notice = check_model_source(config.model, config.source or "config")
    if model_notice:
        log(model_notice)
    import torch
    from accelerate import PartialState

    if not torch.cuda.is_available() and config.model.cpu_threads:
        torch.set_num_threads(config.model.cpu_threads)
    # one per GPU (or CPU process) under accelerate/torchrun, else one; on CPU accelerate only joins
    # the processes (gloo) when asked for a CPU state
    processes = PartialState(cpu=not torch.cuda.is_available())
    if not processes.is_main_process:
        log = _silent  # one voice per run: rank 0 reports, writes summaries and evaluates
    with contextlib.ExitStack() as stack:
        if processes.is_main_process:
            stack.enter_context(run_lock(run_dir))  # a second `codegym train` here stops, naming this one
        check_run_dir(run_dir, resume=resume, overwrite=overwrite, protected=_read_inputs(config))
        processes.wait_for_everyone()  # every process has looked before the first one writes
        if overwrite and processes.is_main_process:
            removed = clear_run_dir(run_dir)
            if removed:
                log(f"starting over: deleted the earlier run's {', '.join(removed)} in {run_dir}")
        processes.wait_for_everyone()
        run_log = stack.enter_context(library_output_to_log(run_dir, processes.process_index))
        say = log

        def log(message: str) -> None:
            say(message)
            run_log.note(message)

        result = _train(config, run_dir, processes, resume, log, extra_callbacks)
        if run_log.warnings and processes.is_main_process:
            say(f"{run_log.warnings} library warnings and notices: {run_log.path}")
        return result


def _train(
    config: TrainConfig,
    run_dir: Path,
    processes: Any,
    resume: str | None,
    log: Any,
    extra_callbacks: list[Any] | None,
) -> TrainResult:
    checkpoint = resolve_resume(resume, run_dir)
    if resume == "auto" and checkpoint is None:
        log(f"no complete checkpoint in {run_dir}: starting from scratch")
    done = finished_step(checkpoint, int(config.trl.get("max_steps") or 0)) if checkpoint else None
    if done is not None:
        log(f"{checkpoint} already reached trl.max_steps ({done}): nothing left to train")
        return _finished_result(run_dir, done, checkpoint, processes.is_main_process)
    registry = TaskRegistry(list(config.data.tasks_dirs))
    data = build_training_data(config.data, registry)
    reward_config = replace(config.reward, completion_format=data.completion_format)
    if processes.is_main_process:
        _write_run_config(run_dir, config, data, reward_config)
    started = time.monotonic()
    on_this_machine = config.sandbox.backend in ("local", "docker")  # ray/http: the nodes' own default
    workers = config.sandbox.workers or (
        default_sandbox_workers(_local_processes(processes)) if on_this_machine else 0
    )
    judging = JudgingOptions(
        backend=config.sandbox.backend,
        workers=workers,
        backend_options=config.sandbox.backend_options(),
        reward=reward_config,
        cache=config.output.cache,
        yardsticks="off",  # the references' measurements go to the run's cache, if any
    )
    with JudgeSession(judging) as session:
        backend, judge = session.backend, session.judge
        assert judge is not None  # a reward config was given
        backend.start()  # a sandbox that cannot start fails the run now, not mid-training
        judge.prepare(list(data.tasks.values()))  # reference yardsticks in one batch, before any step
        rewards = TrlRewards(
            judge,
            data.tasks,
            correction_bonus=config.feedback.correction_bonus,
            on_batch=SampleLog(run_dir / "samples.jsonl", process=processes.process_index),
        )
        packs = [registry.load(name) for name in config.data.packs]
        with processes.main_process_first():  # rank 0 builds `tiny`; the others then find it built
            model_path = base_model_path(config.model, run_dir, packs)
        if config.model.sft_warmup_steps and checkpoint is None:
            log(f"SFT warm-up: {config.model.sft_warmup_steps} steps on reference solutions")
            model_path = sft_warmup(
                model_path,
                data,
                config.model,
                run_dir,
                int(config.trl.get("seed", 0)),
                callbacks=[progress_callback("SFT warm-up", log)],
            )
        elif config.model.sft_warmup_steps and (run_dir / "sft-model").exists():
            model_path = str(run_dir / "sft-model")
        adaptive = AdaptiveLR(config.stability.adaptive_lr, run_dir / "adaptive_lr.jsonl")
        monitor = StabilityMonitor(config.stability, run_dir / "alarms.jsonl")
        profiler = StepProfiler(judge)
        progress = progress_callback(config.algorithm.upper(), log)
        callbacks = [adaptive, monitor, SealCheckpoints(), profiler, *(extra_callbacks or []), progress]
        setup = RunSetup(config, run_dir, model_path, data, rewards, callbacks, resume_checkpoint=checkpoint)
        trainer = _builder(config.algorithm)(setup)
        quiet_default_printers(trainer)  # `progress` shows the steps; every value still reaches the logs
        log_callback_metrics(trainer)  # codegym/lr_scale reaches TensorBoard and log_history
        notice = kl_alarm_notice(trainer.args)
        if notice:
            log(notice)
        status, message = "completed", ""
        try:
            if config.algorithm == "ppo":
                if checkpoint is not None:  # TRL's PPO loop restores no callback state itself
                    restore_callback_states(trainer.callback_handler.callbacks, checkpoint)
                trainer.train_resumable(checkpoint)
            else:
                trainer.train(resume_from_checkpoint=str(checkpoint) if checkpoint else None)
        except TrainingHalted as exc:
            status, message = "halted", str(exc)
        export_final_model(trainer, run_dir / "final-model", model_path)
        if processes.is_main_process:  # eval --prompt-style auto prompts it as it was trained
            from codegym.eval.model_info import write_model_info

            write_model_info(run_dir / "final-model", config.data.prompt, algorithm=config.algorithm)
        learning = None
        if config.evaluation.enabled and processes.is_main_process:
            learning = _evaluate_learning(config, data, backend, model_path, run_dir, log)
        # on a GRPO/RLOO resume transformers rebuilt these from the checkpoint: read the live ones
        adaptive, monitor = live_callback(trainer, adaptive), live_callback(trainer, monitor)
        stats = judge.stats()
    history = trainer.state.log_history
    plot = (
        plot_rewards(history, run_dir / "reward_components.png", f"{config.algorithm}: reward per step")
        if config.output.plot and processes.is_main_process
        else None
    )
    last = {k: v for entry in history for k, v in entry.items() if isinstance(v, (int, float))}
    result = TrainResult(
        status=status,
        run_dir=run_dir,
        steps=trainer.state.global_step,
        message=message,
        resumed_from=str(checkpoint) if checkpoint else None,
        plot=str(plot) if plot else None,
        main_process=processes.is_main_process,
        metrics={
            **{
                k: last[k]
                for k in sorted(last)
                if k.startswith(
                    ("rewards/", "codegym/", "reward", "kl", "entropy", "objective/", "num_tokens")
                )
            },
            "reward_judge": stats,
            "adaptive_lr_events": adaptive.events,
            "alarms": monitor.alarms,
            "timing": profiler.summary(),
            "seconds": time.monotonic() - started,
            **({"learning": learning.to_dict()} if learning is not None else {}),
        },
    )
    if processes.is_main_process:
        (run_dir / "summary.json").write_text(
            json.dumps({**asdict(result), "run_dir": str(run_dir)}, indent=2, default=str)
        )
    return result
