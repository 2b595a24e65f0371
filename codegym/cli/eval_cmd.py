"""`codegym eval`: generate samples with a model (or take a samples file), judge them, report pass@k
and the joint reward, and record the run in the results database."""

from __future__ import annotations

import os
from collections.abc import Callable
from pathlib import Path
from typing import Any

import typer
from rich.table import Table

from codegym.cli.common import (
    BackendOption,
    CacheOption,
    CliError,
    RayAddressOption,
    RewardConfigOption,
    TasksDirOption,
    WorkersOption,
    YardsticksOption,
    console,
    error_console,
    judging_options,
    print_json,
    registry,
    reward_config,
    user_errors,
)
from codegym.cli.leaderboard_cmd import DbOption, db_url

DEFAULT_API_KEY_ENV = "OPENAI_API_KEY"


def eval_command(
    pack: str = typer.Option(..., "--pack", "-p", help="Task pack to evaluate on."),
    out: Path = typer.Option(
        ..., "--out", "-o", help="Run directory; an existing one of the same run is resumed."
    ),
    model: str = typer.Option(
        None, "--model", "-m", help="Model to sample from (path, or name for --engine openai)."
    ),
    samples: Path = typer.Option(
        None,
        "--samples",
        help="Evaluate this samples JSONL (task_id + completion or solution) instead of a model.",
    ),
    n_samples: int = typer.Option(1, "--n-samples", "-n", help="Samples per task."),
    k: str = typer.Option("1", "--k", help="Comma-separated k values for pass@k, e.g. 1,10."),
    temperature: float = typer.Option(
        None, "--temperature", help="Sampling temperature (default: 0 = greedy for 1 sample, else 0.8)."
    ),
    top_p: float = typer.Option(0.95, "--top-p", help="Nucleus sampling mass."),
    max_new_tokens: int = typer.Option(512, "--max-new-tokens", help="Tokens per sample at most."),
    seed: int = typer.Option(0, "--seed", help="Base random seed."),
    stop: list[str] = typer.Option(
        None, "--stop", help="Stop sequence (repeatable; default for completion prompts: EvalPlus's)."
    ),
    prompt_style: str = typer.Option(
        "auto",
        "--prompt-style",
        help="auto (as trained for a codegym-trained model, else chat when the model has a chat template), "
        "chat or completion.",
    ),
    engine: str = typer.Option(
        "transformers", "--engine", "-e", help="Generation engine: transformers, vllm, openai."
    ),
    device: str = typer.Option("auto", "--device", help="transformers: auto, cpu, cuda, cuda:N."),
    dtype: str = typer.Option("auto", "--dtype", help="transformers/vllm: auto, float32, bfloat16, float16."),
    batch_size: int = typer.Option(8, "--batch-size", help="transformers: sequences per generate call."),
    api_base: str = typer.Option(None, "--api-base", help="openai: base URL, e.g. http://localhost:8000/v1."),
    api_key_env: str = typer.Option(
        None,
        "--api-key-env",
        help=f"openai: environment variable holding the API key (default {DEFAULT_API_KEY_ENV}, optional).",
    ),
    concurrency: int = typer.Option(8, "--concurrency", help="openai: requests in flight at most."),
    max_retries: int = typer.Option(
        5, "--max-retries", help="openai: retries per sample (429, 5xx, timeouts)."
    ),
    request_timeout: float = typer.Option(120.0, "--request-timeout", help="openai: seconds per request."),
    limit: int = typer.Option(None, "--limit", help="Only the first N tasks of the pack (smoke runs)."),
    label: str = typer.Option(
        None, "--label", help="Name shown in the leaderboard (default: the model or samples file)."
    ),
    backend_name: str = BackendOption,
    ray_address: str = RayAddressOption,
    workers: int = WorkersOption,
    reward_config_path: Path = RewardConfigOption,
    cache: str = CacheOption,
    yardsticks: str = YardsticksOption,
    tasks_dir: list[Path] = TasksDirOption,
    db: str = DbOption,
    record: bool = typer.Option(True, "--record/--no-record", help="Record the run in the results database."),
    rejudge: bool = typer.Option(
        False, "--rejudge", help="Judge every sample again (e.g. after sandbox errors)."
    ),
    as_json: bool = typer.Option(False, "--json", help="Print the results as JSON."),
) -> None:
    """Evaluate a model (or a samples file) on a task pack: samples, judged rows, pass@k, rewards.

    Writes OUT/samples.jsonl, OUT/judged.jsonl and OUT/results.json; rerunning with the same OUT
    resumes. Samples files are checked strictly first: a malformed row stops the run with its
    file, line and field.
    """
    from codegym.eval.api import EvalJob, GenerationRequest, evaluate
    from codegym.eval.passk import parse_ks
    from codegym.eval.runs import eval_output
    from codegym.rollout.generation import ENGINES

    with user_errors():
        if model and samples:
            raise CliError("--model and --samples exclude each other: evaluate a model, or a samples file")
        if not model and not samples:
            raise CliError(
                "give --model MODEL to generate samples, or --samples FILE.jsonl to evaluate a file"
            )
        ks = parse_ks(k)
        if samples is not None:
            generation_only = {
                "--n-samples": n_samples != 1,
                "--temperature": temperature is not None,
                "--api-base": api_base is not None,
                "--limit": limit is not None,
                "--stop": bool(stop),
            }
            used = [name for name, given in generation_only.items() if given]
            if used:
                raise CliError(f"{', '.join(used)} only apply when generating with --model")
            if not samples.is_file():
                raise CliError(f"--samples {samples}: no such file")
        else:
            if engine not in ENGINES:
                raise CliError(f"--engine {engine!r}: use one of {', '.join(ENGINES)}")
            if n_samples < 1:
                raise CliError("--n-samples must be >= 1")
            too_big = [kk for kk in ks if kk > n_samples]
            if too_big:
                raise CliError(
                    f"--k {','.join(map(str, too_big))} needs at least that many samples; raise --n-samples"
                )
            if prompt_style not in ("auto", "chat", "completion"):
                raise CliError("--prompt-style must be auto, chat or completion")
            if engine == "openai" and not api_base:
                raise CliError("--engine openai needs --api-base URL (e.g. http://localhost:8000/v1)")
            if engine != "openai" and api_base:
                raise CliError("--api-base applies to --engine openai only")
            looks_local = model.startswith(("/", "./", "../", "~")) or Path(model).exists()
            if engine != "openai" and looks_local and not Path(model).expanduser().is_dir():
                raise CliError(f"--model {model}: no such model directory")
        # checked and locked before anything heavy (the model loads for minutes): never
        # write into a folder eval did not make, never two evals into one folder
        with eval_output(out):
            task_pack = registry(tasks_dir).load(pack)
            judging = judging_options(
                backend_name,
                workers,
                ray_address=ray_address,
                reward=reward_config(reward_config_path),
                cache=cache,
                yardsticks=yardsticks,
            )
            database_url = db_url(db) if record else None
            if database_url is not None:  # a bad --db fails now, not after the run
                from codegym.eval.results_db import ResultsDB

                ResultsDB(database_url).close()
            generation = None
            if samples is None:
                generation = GenerationRequest(
                    model=model,
                    engine=engine,
                    n_samples=n_samples,
                    temperature=temperature,
                    top_p=top_p,
                    max_new_tokens=max_new_tokens,
                    seed=seed,
                    stop=tuple(stop or ()),
                    prompt_style=prompt_style,
                    device=device,
                    dtype=dtype,
                    batch_size=batch_size,
                    api_base=api_base,
                    api_key=_api_key(engine, api_key_env),
                    concurrency=concurrency,
                    max_retries=max_retries,
                    request_timeout_s=request_timeout,
                    limit=limit,
                )
                if generation.sampling_temperature == 0 and n_samples > 1:
                    error_console.print(
                        f"[yellow]warning:[/] greedy decoding (--temperature 0) makes all {n_samples} "
                        "samples of a task the same",
                        highlight=False,
                    )
            job = EvalJob(
                pack=task_pack,
                out_dir=out,
                ks=ks,
                samples_file=samples,
                generation=generation,
                label=label,
                rejudge=rejudge,
                database_url=database_url,
            )
            try:
                report = _with_progress(
                    lambda progress: evaluate(  # a bad --cache fails there before any model loads
                        job,
                        judging,
                        progress=progress,
                        notice=lambda line: error_console.print(line, highlight=False, soft_wrap=True),
                    )
                )
            except KeyboardInterrupt:
                error_console.print(
                    f"interrupted: rerun the same command (same --out {out}) to resume", highlight=False
                )
                raise typer.Exit(130) from None
    _report(report.outcome, ks, database_url, report.recorded, as_json)


def _api_key(engine: str, api_key_env: str | None) -> str | None:
    """The API key, read here at the CLI boundary (the library never reads the environment)."""
    if engine != "openai":
        return None
    api_key = os.environ.get(api_key_env or DEFAULT_API_KEY_ENV)
    if api_key_env and not api_key:
        raise CliError(f"--api-key-env {api_key_env}: that environment variable is not set")
    return api_key or None


def _with_progress(run: Callable[[Any], Any]) -> Any:
    """`run(progress hooks)` with bars on a terminal, a line every 30 s in a log file."""
    from codegym.eval.runs import EvalProgress

    if not console.is_terminal:  # a log file: a line every 30 s, not minutes of silence
        from codegym.eval.progress import PeriodicLog

        log = PeriodicLog(lambda line: error_console.print(line, highlight=False, markup=False))
        return run(log.eval_hooks())
    # here, on a terminal only: rich.progress costs every start of the command ~35 ms otherwise
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        bars: dict[str, Any] = {}

        def start(name: str):
            return lambda total: bars.__setitem__(name, progress.add_task(name, total=total))

        hooks = EvalProgress(
            on_generation_start=start("generating"),
            on_sample=lambda row: progress.advance(bars["generating"]),
            on_judge_start=start("judging"),
            on_judged=lambda row: progress.advance(bars["judging"]),
        )
        return run(hooks)


def _report(outcome: Any, ks, database_url: str | None, recorded: bool | None, as_json: bool) -> None:
    results = outcome.results  # EvalResults
    if as_json:
        print_json(
            {
                **{key: value for key, value in results.to_dict().items() if key != "per_task"},
                "out_dir": str(outcome.out_dir),
                "db": database_url,
                "recorded": recorded,
            }
        )
        return
    pack = results.pack
    from codegym.eval.leaderboard import display_model

    table = Table(
        title=f"{display_model(results.model)} on {pack.name} {pack.version} ({pack.hash[:12]})",
        min_width=60,
        title_justify="left",
        show_header=True,
    )
    table.add_column("metric")
    table.add_column("value", justify="right")
    for kk in ks:
        value = results.pass_at_k.get(kk)
        strict = results.strict.get(kk)
        suffix = f"  (strict {strict:.1%})" if strict is not None and strict != value else ""
        table.add_row(f"pass@{kk}", ("n/a" if value is None else f"{value:.1%}") + suffix)
    reward = results.reward
    table.add_row("reward (mean)", "n/a" if reward is None else f"{reward:.4f}")
    for name, value in results.components.items():
        table.add_row(f"  {name}", "n/a" if value is None else f"{value:.3f}")
    console.print(table)
    counts, tasks = results.counts, results.tasks
    statuses = ", ".join(f"{s} {n}" for s, n in counts.statuses.items())
    console.print(
        f"{counts.samples} samples on {tasks.evaluated}/{tasks.selected} tasks: {statuses}",
        highlight=False,
    )
    if outcome.generation is not None:
        g = outcome.generation
        console.print(
            f"generated {g.generated} samples ({g.resumed} kept from an earlier run)", highlight=False
        )
    if outcome.judge.resumed:
        console.print(
            f"judged {outcome.judge.judged} rows ({outcome.judge.resumed} resumed)", highlight=False
        )
    warn = error_console.print
    if counts.generation_errors:
        warn(
            f"[yellow]warning:[/] {counts.generation_errors} samples could not be generated "
            "(counted as failed); rerun the same command to retry them",
            highlight=False,
        )
    if counts.sandbox_errors:
        warn(
            f"[yellow]warning:[/] {counts.sandbox_errors} sandbox errors (not verdicts; left out "
            "of pass@k); rerun with --rejudge",
            highlight=False,
        )
    for kk, short in results.insufficient_samples.items():
        warn(
            f"[yellow]warning:[/] pass@{kk} not reported: {len(short)} tasks have fewer than {kk} samples "
            f"(e.g. {', '.join(short[:3])})",
            highlight=False,
        )
    if tasks.missing:
        warn(
            f"[yellow]note:[/] {len(tasks.missing)} of {tasks.selected} tasks have no samples "
            f"(e.g. {', '.join(tasks.missing[:3])})",
            highlight=False,
        )
    console.print(f"results: {outcome.out_dir / 'results.json'}", highlight=False)
    if database_url is not None:
        state = "recorded" if recorded else "updated"
        console.print(f"{state} run {outcome.run_id} in {database_url}", highlight=False)
