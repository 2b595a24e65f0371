"""`codegym eval`: sampling runs, pass@k and results (being built)."""

from __future__ import annotations

import typer


def eval_command(pack: str = typer.Option(..., "--pack", "-p", help="Task pack.")) -> None:
    """Evaluate a model or a samples file on a task pack (not implemented yet)."""
    raise typer.Exit(2)
