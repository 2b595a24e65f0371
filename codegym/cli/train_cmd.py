"""`codegym train CONFIG.yaml [--output-dir DIR] [--resume auto|PATH] [--overwrite] [--max-steps N]
[key=value ...]`."""

from __future__ import annotations

from pathlib import Path

import typer

from codegym.cli.common import CliError, console, error_console, user_errors


def train(
    config: Path = typer.Argument(..., help="Training config (YAML), e.g. configs/quickstart.yaml."),
    overrides: list[str] = typer.Argument(
        None, help="Overrides as dotted key=value, e.g. trl.learning_rate=1e-5."
    ),
    output_dir: Path = typer.Option(None, "--output-dir", "-o", help="Run directory (overrides output.dir)."),
    resume: str = typer.Option(
        None, "--resume", help="auto (newest complete checkpoint) or a checkpoint path."
    ),
    overwrite: bool = typer.Option(
        False,
        "--overwrite",
        help="Start over in a run directory that holds an earlier run: delete that run's files first "
        "(refused if the folder holds files codegym did not write).",
    ),
    max_steps: int = typer.Option(None, "--max-steps", help="Training steps (overrides trl.max_steps)."),
) -> None:
    """Train a policy with TRL (GRPO, RLOO or PPO) on the execution reward."""
    with user_errors(names={"cache": "output.cache"}):  # no --cache flag: the config field sets it
        if max_steps is not None and max_steps < 1:
            raise CliError(f"--max-steps must be >= 1, got {max_steps}")
        from codegym.train.config import load_train_config
        from codegym.train.run import run_training

        extra = list(overrides or [])
        if output_dir is not None:
            extra.append(f"output.dir={output_dir}")
        if max_steps is not None:
            extra.append(f"trl.max_steps={max_steps}")
        settings = load_train_config(config, extra)  # a ConfigError is one line (user_errors)
        console.print(f"[bold]codegym train[/] {settings.algorithm} → {settings.output_dir}", highlight=False)
        result = run_training(
            settings,
            resume=resume,
            overwrite=overwrite,
            log=lambda message: console.print(message, highlight=False, markup=False, soft_wrap=True),
        )
    if not result.main_process:
        return
    joint = result.metrics.get("rewards/joint/mean", result.metrics.get("objective/scores"))
    summary = f"{result.status}: {result.steps} steps"
    if joint is not None:
        summary += f", last mean reward {joint:.4f}"
    if result.resumed_from:
        summary += f" (resumed from {result.resumed_from})"
    console.print(summary, highlight=False, markup=False)
    if result.plot:
        console.print(f"plot: {result.plot}", highlight=False, markup=False)
    if result.status == "halted":
        error_console.print(f"[bold red]training stopped:[/] {result.message}", highlight=False)
        raise typer.Exit(3)
