"""`codegym leaderboard`: show the recorded evaluation runs, export them as a static HTML page."""

from __future__ import annotations

import os
from pathlib import Path

import typer
from rich import box
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
    pack: str = PackFilterOption,
    db: str = DbOption,
    sort: str = typer.Option(
        None, "--sort", help="Metric to rank by: pass@K, reward, components/NAME (default: pass@ smallest k)."
    ),
    limit: int = typer.Option(0, "--limit", "-n", help="Show the best N runs only (0 = all)."),
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Print the leaderboard: model, pack, pass@k, reward and its components, date."""
    from codegym.eval.leaderboard import display_model, ks_of, leaderboard_rows
    from codegym.reward.config import COMPONENTS

    with user_errors(), open_db(db) as database:
        records = database.runs(pack)
        rows = leaderboard_rows(records, sort)
    if limit > 0:
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
        ("model", 0, [display_model(r["model"]) + ("" if r["complete"] else " (partial)") for r in rows]),
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
    if dropped:
        console.print(f"(not shown for lack of width: {', '.join(sorted(dropped))}; use --json)", style="dim")


@app.command("export")
def export(
    html: Path = typer.Option(..., "--html", help="Directory to write index.html into."),
    pack: str = PackFilterOption,
    db: str = DbOption,
    samples_per_task: int = typer.Option(
        5, "--samples-per-task", help="Samples per task and run to embed for the drill-down (0 = none)."
    ),
    title: str = typer.Option("codegym leaderboard", "--title", help="Page title."),
) -> None:
    """Write a static, self-contained HTML leaderboard (sortable runs, per-task drill-down, plots)."""
    from codegym.eval.leaderboard import export_html

    with user_errors(), open_db(db) as database:
        if html.exists() and not html.is_dir():
            raise CliError(f"--html {html} is a file; give a directory")
        path = export_html(database, html, pack=pack, samples_per_task=samples_per_task, title=title)
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
