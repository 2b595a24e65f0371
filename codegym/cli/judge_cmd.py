"""`codegym judge`: judge a samples file against a task pack."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer
from rich.table import Table

from codegym.cli.common import (
    BackendOption,
    CacheOption,
    RayAddressOption,
    RewardConfigOption,
    TasksDirOption,
    WorkersOption,
    YardsticksOption,
    console,
    error_console,
    judging_options,
    registry,
    reward_config,
    user_errors,
)

if TYPE_CHECKING:
    from codegym.eval.judge import JudgeSummary


def judge(
    samples: Path = typer.Argument(..., help="JSONL: task_id plus `completion` or `solution` per row."),
    pack: str = typer.Option(..., "--pack", "-p", help="Task pack the samples answer."),
    out: Path = typer.Option(..., "--out", "-o", help="Output JSONL; an existing one is resumed."),
    backend_name: str = BackendOption,
    ray_address: str = RayAddressOption,
    workers: int = WorkersOption,
    resume: bool = typer.Option(True, "--resume/--no-resume", help="Continue an interrupted --out file."),
    with_reward: bool = typer.Option(True, "--reward/--no-reward", help="Add the joint reward to each row."),
    reward_config_path: Path = RewardConfigOption,
    cache: str = CacheOption,
    yardsticks: str = YardsticksOption,
    tasks_dir: list[Path] = TasksDirOption,
) -> None:
    """Run every sample's code against its task's hidden tests; write one judged row per input row."""
    from codegym.reward.session import JudgeSession

    with user_errors():
        try:
            config = reward_config(reward_config_path) if with_reward else None
            options = judging_options(
                backend_name,
                workers,
                ray_address=ray_address,
                reward=config,
                cache=cache,
                yardsticks=yardsticks,
            )
            with JudgeSession(options) as session:
                session.backend.start_in_background()  # the workers start while the pack loads
                from codegym.eval.judge import count_rows  # (~0.1 s: after the workers' start began)

                task_pack = registry(tasks_dir).load(pack)
                total = count_rows(samples) if samples.is_file() else 0
                judge_rewards = session.judge
                summary = _run(samples, task_pack, session.backend, out, judge_rewards, resume, total)
        except KeyboardInterrupt:
            error_console.print(
                f"interrupted: the rows judged so far are in {out}; run the same command again to resume",
                highlight=False,
                soft_wrap=True,
            )
            raise typer.Exit(130) from None
    _print_summary(summary, out)
    if summary.valid == 0 and summary.resumed == 0:
        what = "is empty" if summary.judged == 0 else f"has no valid row ({summary.judged} rows, all invalid)"
        error_console.print(f"nothing was judged: {samples} {what}", highlight=False, soft_wrap=True)
        raise typer.Exit(1)
    if judge_rewards is not None:
        stats = judge_rewards.stats()
        cache_stats = stats["cache"]
        hits = f", cache hit rate {cache_stats['hit_rate']:.0%}" if cache_stats else ""
        console.print(
            f"reward: hacking detectors fired on {stats['hack_rate']:.1%} of samples "
            f"{stats['hack_counts'] or ''}{hits}",
            highlight=False,
        )


def _run(samples, task_pack, sandbox, out, judge_rewards, resume, total) -> JudgeSummary:
    from codegym.eval.judge import judge_samples_file

    if not console.is_terminal:
        return judge_samples_file(samples, task_pack, sandbox, out, reward=judge_rewards, resume=resume)
    # here, on a terminal only: rich.progress costs every start of the command ~35 ms otherwise
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeRemainingColumn

    columns = (TextColumn("judging"), BarColumn(), MofNCompleteColumn(), TimeRemainingColumn())
    with Progress(*columns, console=console, transient=True) as progress:
        bar = progress.add_task("judge", total=total)
        summary = judge_samples_file(
            samples,
            task_pack,
            sandbox,
            out,
            reward=judge_rewards,
            resume=resume,
            on_row=lambda row: progress.advance(bar),
        )
    return summary


def _print_summary(summary: JudgeSummary, out: Path) -> None:
    table = Table(title=f"judged → {out}", show_header=True)
    table.add_column("status")
    table.add_column("rows", justify="right")
    for status, count in sorted(summary.statuses.items()):
        table.add_row(status, str(count))
    console.print(table)
    resumed = f" ({summary.resumed} resumed from an earlier run)" if summary.resumed else ""
    console.print(
        f"{summary.judged} rows judged{resumed}, {summary.passed} passed, "
        f"{summary.rows_per_second:.1f} rows/s",
        highlight=False,
    )
