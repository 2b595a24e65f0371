"""`codegym leaderboard`: results database and HTML export (being built)."""

from __future__ import annotations

import typer

app = typer.Typer(help="Show and export the leaderboard of evaluation runs.", no_args_is_help=True)


@app.command("show")
def show() -> None:
    """Print the leaderboard (not implemented yet)."""
    raise typer.Exit(2)
