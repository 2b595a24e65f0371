"""`codegym reward`: the joint reward of one file for one task, as a table or JSON."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.table import Table

from codegym.cli.common import (
    BackendOption,
    CacheOption,
    RewardConfigOption,
    TasksDirOption,
    YardsticksOption,
    console,
    judging_options,
    print_json,
    registry,
    reward_config,
    user_errors,
)


def reward(
    file: Path = typer.Argument(
        ..., help="The program: a whole solution file, or with --completion a completion."
    ),
    pack: str = typer.Option(..., "--pack", "-p", help="Task pack."),
    task: str = typer.Option(..., "--task", "-t", help="Task name or id."),
    completion: bool = typer.Option(False, "--completion", help="FILE continues the task's prompt/starter."),
    reward_config_path: Path = RewardConfigOption,
    backend_name: str = BackendOption,
    cache: str = CacheOption,
    yardsticks: str = YardsticksOption,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
    tasks_dir: list[Path] = TasksDirOption,
) -> None:
    """Judge FILE against the task's hidden tests and print the reward breakdown and detector flags."""
    from codegym.reward.extract import extract_code
    from codegym.reward.session import JudgeSession

    with user_errors():
        item = registry(tasks_dir).load(pack).get(task)
        if not file.is_file():
            raise FileNotFoundError(f"{file}: no such file")
        config = reward_config(reward_config_path)
        text = file.read_text(encoding="utf-8")
        extracted = extract_code(item, text, "append" if completion else "solution")
        options = judging_options(backend_name, 1, reward=config, cache=cache, yardsticks=yardsticks)
        with JudgeSession(options) as session:
            assert session.judge is not None  # a reward config was given
            breakdown = session.judge.score(item, extracted.code, extracted.first_generated_line)
    if as_json:
        print_json({"task_id": item.task_id, **breakdown.to_dict(), "cached": breakdown.cached})
        return
    weights = config.weights.as_dict()
    table = Table("component", "value", "weight", title=f"{item.task_id}: {breakdown.status}")
    for name, value in breakdown.components.items():
        table.add_row(name, "n/a" if value is None else f"{value:.3f}", f"{weights[name]:g}")
    total = (
        "None (sandbox error: not a verdict on the code)"
        if breakdown.total is None
        else f"{breakdown.total:.4f}"
    )
    table.add_row("[bold]total[/]", f"[bold]{total}[/]", "")
    console.print(table)
    console.print(
        f"hidden tests: {breakdown.tests_passed}/{breakdown.tests_total}"
        + (
            f", visible: {breakdown.visible_passed}/{breakdown.visible_total}"
            if breakdown.visible_total is not None
            else ""
        ),
        highlight=False,
    )
    for name, evidence in (breakdown.details.get("detector_evidence") or {}).items():
        console.print(f"[red]hack detected[/] {name}: {evidence}", highlight=False)
    if breakdown.details.get("style_findings"):
        console.print(f"style findings: {', '.join(breakdown.details['style_findings'])}", highlight=False)
    if breakdown.status != "passed" and breakdown.details.get("message"):
        console.print(f"message: {breakdown.details['message']}", markup=False, highlight=False)
