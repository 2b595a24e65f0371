"""The `codegym` typer application. Each subcommand lives in its own module; heavy imports stay lazy."""

from __future__ import annotations

import typer

from codegym import __version__
from codegym.cli import (
    context_cmd,
    eval_cmd,
    judge_cmd,
    leaderboard_cmd,
    reward_cmd,
    sandbox_cmd,
    serve_cmd,
    tasks_cmd,
    train_cmd,
)

app = typer.Typer(
    name="codegym",
    help="codegym: generate code with a policy model, execute it in a sandbox, reward it, train on it.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def _version(value: bool) -> None:
    if value:
        print(f"codegym {__version__}")
        raise typer.Exit()


@app.callback()
def _main(
    version: bool = typer.Option(
        False, "--version", callback=_version, is_eager=True, help="Print the version."
    ),
) -> None:
    """codegym: generate code with a policy model, execute it in a sandbox, reward it, train on it."""


app.command("train")(train_cmd.train)
app.command("judge")(judge_cmd.judge)
app.command("reward")(reward_cmd.reward)
app.add_typer(tasks_cmd.app, name="tasks")
app.add_typer(sandbox_cmd.app, name="sandbox")
app.command("context")(context_cmd.context)
app.command("eval")(eval_cmd.eval_command)
app.add_typer(leaderboard_cmd.app, name="leaderboard")
app.command("serve")(serve_cmd.serve)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
