"""`codegym leaderboard`: show the recorded evaluation runs, export them as a static HTML page."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich import box
from rich.markup import escape
from rich.table import Table

from codegym.cli.common import CliError, console, print_json, user_errors

app = typer.Typer(help="Show and export the leaderboard of evaluation runs.", no_args_is_help=True)

DbOption = typer.Option(
    None,
    "--db",
    envvar="CODEGYM_DB",
    help="Results database URL (SQLAlchemy: sqlite:///path.sqlite, postgresql+psycopg://...). "
    "Default: sqlite under $XDG_DATA_HOME/codegym (~/.local/share/codegym/results.sqlite).",
)
PackFilterOption = typer.Option(None, "--pack", "-p", help="Only runs on this pack.")


def db_url(option: str | None) -> str:
    """The --db URL, or the default SQLite file (the environment is read here, at the CLI boundary)."""
    from codegym.eval.results_db import default_db_url

    if option:
        return option
    data_home = os.environ.get("XDG_DATA_HOME")
    return default_db_url(Path(data_home) if data_home else None)


def open_db(option: str | None):
    from codegym.eval.results_db import ResultsDB

    return ResultsDB(db_url(option))


def _pct(value: float | None) -> str:
    return "–" if value is None else f"{value:.1%}"


def _num(value: float | None, digits: int = 3) -> str:
    return "–" if value is None else f"{value:.{digits}f}"


@app.command("show")
def show(
    run: str = typer.Argument(
        None, help="Run id (or prefix): show that run's tasks and the tests its failed samples failed."
    ),
    pack: str = PackFilterOption,
    db: str = DbOption,
    sort: str = typer.Option(
        None, "--sort", help="Metric to rank by: pass@K, reward, components/NAME (default: pass@ smallest k)."
    ),
    limit: int = typer.Option(None, "--limit", "-n", help="Show the best N runs only (N >= 1)."),
    include_partial: bool = typer.Option(
        False,
        "--include-partial",
        help="Rank partial runs (fewer tasks than the pack, errors, too few samples) with the complete "
        "ones; by default they are listed after them, unranked.",
    ),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Print the leaderboard: rank, model, pack, pass@k, reward and its components, date."""
    from codegym.eval.leaderboard import display_model, ks_of, leaderboard_rows, run_details
    from codegym.reward.config import COMPONENTS

    with user_errors():
        if limit is not None and limit < 1:
            raise CliError(f"--limit must be >= 1, got {limit} (leave it out to show every run)")
        with open_db(db) as database:
            if run is not None:
                details = run_details(database, run)
            else:
                records = database.runs(pack)
                rows = leaderboard_rows(records, sort, include_partial=include_partial)
    if run is not None:
        _show_run(details, as_json)
        return
    if limit is not None:
        rows = rows[:limit]
    if as_json:
        print_json(rows)
        return
    if not rows:
        console.print(
            f"no runs recorded{f' for pack {pack!r}' if pack else ''} in {database.url}", highlight=False
        )
        return
    ks = ks_of(records)
    short = {"coverage": "cov", "complexity": "cplx", "efficiency": "eff"}
    # (header, priority, cells): the lowest-priority columns go first when the terminal is narrow
    columns: list[tuple[str, int, list[str]]] = [
        ("#", 0, ["–" if r["rank"] is None else str(r["rank"]) for r in rows]),
        ("model", 0, [display_model(r["model"]) + (" (partial)" if r["partial"] else "") for r in rows]),
        ("pack", 1, [f"{r['pack']} {r['pack_version']}" for r in rows]),
        *((f"pass@{k}", 0, [_pct(r.get(f"pass@{k}")) for r in rows]) for k in ks),
        ("reward", 1, [_num(r["reward"]) for r in rows]),
        *((short.get(c, c), 3, [_num(r["components"][c], 2) for r in rows]) for c in COMPONENTS),
        ("n", 5, [str(r["n_samples"]) for r in rows]),
        ("tasks", 2, [r["tasks"] for r in rows]),
        ("date", 4, [r["date"][:10] for r in rows]),
        ("run", 1, [r["run_id"][:8] for r in rows]),
    ]

    def width(column: tuple[str, int, list[str]]) -> int:
        return max(len(column[0]), *(len(cell) for cell in column[2])) + 3

    dropped: set[str] = set()
    while sum(width(c) for c in columns if c[0] not in dropped) > console.width:
        candidates = [c for c in columns if c[0] not in dropped and c[1] > 0]
        if not candidates:
            break
        worst = max(c[1] for c in candidates)
        dropped.update(c[0] for c in candidates if c[1] == worst)
    shown = [c for c in columns if c[0] not in dropped]
    table = Table(title=f"codegym leaderboard ({database.url})", title_justify="left", box=box.SIMPLE_HEAD)
    for header, _, _ in shown:
        numeric = header not in ("model", "pack", "date", "run")
        table.add_column(header, justify="right" if numeric else "left", overflow="fold")
    for index in range(len(rows)):
        table.add_row(*(cells[index] for _, _, cells in shown))
    console.print(table)
    unranked = sum(1 for r in rows if r["rank"] is None)
    if unranked:
        console.print(
            f"{unranked} partial run{'s' if unranked != 1 else ''} (fewer tasks than the pack, errors or too "
            "few samples) listed after the complete ones, unranked; --include-partial ranks them",
            style="dim",
            highlight=False,
        )
    if dropped:
        console.print(f"(not shown for lack of width: {', '.join(sorted(dropped))}; use --json)", style="dim")


def _show_run(details: dict, as_json: bool) -> None:
    """One run: per-task results (natural task order) and the failed samples with their failed tests."""
    from codegym.eval.leaderboard import display_model

    if as_json:
        print_json(details)
        return
    run = details["run"]
    metrics = run["metrics"]
    passk = ", ".join(f"{name} {_pct(value)}" for name, value in metrics.items() if name.startswith("pass@"))
    state = " (partial)" if run["partial"] else ""
    console.print(
        f"[bold]{escape(display_model(run['model']))}[/]{state} on {escape(run['pack'])} "
        f"{escape(run['pack_version'])}: {passk}, reward {_num(metrics.get('reward'))}, "
        f"{run['tasks_evaluated']}/{run['pack_tasks']} tasks, run {run['run_id']}",
        highlight=False,
    )
    table = Table(box=box.SIMPLE_HEAD, title_justify="left")
    ks = sorted(int(name[5:]) for name in metrics if name.startswith("pass@"))
    for header in ("task", "n", "passed", *(f"pass@{k}" for k in ks), "reward", "statuses"):
        table.add_column(header, justify="left" if header in ("task", "statuses") else "right")
    for task in details["tasks"]:
        statuses = ", ".join(f"{s} {n}" for s, n in sorted((task.get("statuses") or {}).items()))
        table.add_row(
            escape(task["task_id"]),
            str(task["n"]),
            str(task["c"]),
            *(_pct(task.get(f"pass@{k}")) for k in ks),
            _num(task.get("reward")),
            statuses,
        )
    console.print(table)
    failed = details["failed_samples"]
    if not failed:
        console.print("every sample passed", highlight=False)
        return
    console.print(f"[bold]{len(failed)} failed sample{'s' if len(failed) != 1 else ''}[/]")
    for sample in failed:
        which = (
            f"sample {sample['sample_index']}"
            if sample["sample_index"] is not None
            else f"row {sample['position']}"
        )
        console.print(
            f"{escape(sample['task_id'])} {which}: {sample['status']}, tests "
            f"{sample['tests_passed']}/{sample['tests_total']}",
            highlight=False,
        )
        for test in sample["failed_tests"]:
            why = f": {test['message'].splitlines()[0][:160]}" if test.get("message") else ""
            console.print(f"    {escape(test['id'])} {test['outcome']}{escape(why)}", highlight=False)
        if not sample["failed_tests"] and sample["message"]:
            console.print(f"    {escape(sample['message'].splitlines()[0][:200])}", highlight=False)


@app.command("export")
def export(
    html: Path = typer.Option(..., "--html", help="Directory to write index.html into."),
    pack: str = PackFilterOption,
    db: str = DbOption,
    samples_per_task: int = typer.Option(
        5, "--samples-per-task", help="Samples per task and run to embed for the drill-down (0 = none)."
    ),
    title: str = typer.Option("codegym leaderboard", "--title", help="Page title."),
    include_partial: bool = typer.Option(
        False, "--include-partial", help="Rank partial runs with the complete ones (see `show`)."
    ),
) -> None:
    """Write a static, self-contained HTML leaderboard (sortable runs, per-task drill-down, plots)."""
    from codegym.eval.leaderboard import export_html

    with user_errors(), open_db(db) as database:
        if html.exists() and not html.is_dir():
            raise CliError(f"--html {html} is a file; give a directory")
        path = export_html(
            database,
            html,
            pack=pack,
            samples_per_task=samples_per_task,
            title=title,
            include_partial=include_partial,
        )
        count = len(database.runs(pack))
    console.print(f"wrote {path} ({count} run{'s' if count != 1 else ''})", highlight=False)


@app.command("remove")
def remove(
    run_id: str = typer.Argument(
        ..., help="Run id (or an unambiguous prefix) as `leaderboard show` prints it."
    ),
    db: str = DbOption,
) -> None:
    """Delete one run (its metrics, tasks and samples) from the results database."""
    with user_errors(), open_db(db) as database:
        removed = database.delete(run_id)
    console.print(f"removed run {removed}", highlight=False)
