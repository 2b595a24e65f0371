"""The `codegym` typer application. Each subcommand lives in its own module; heavy imports stay lazy."""

from __future__ import annotations

import os
import sys
import tempfile
import time
import traceback
from pathlib import Path

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
from codegym.cli.early import start_sandbox_early
from codegym.errors import EXIT_INTERNAL_ERROR, EXIT_USER_ERROR, CodegymError

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


def main(early: bool = False) -> None:
    """Run the command line: a codegym error is one line (exit 2, printed by the command); anything
    else is a bug, reported with the file that holds its traceback (exit 4). `early`: a sandbox was
    begun for it before this module was imported (see `codegym.cli.entry`)."""
    debug = "--debug" in sys.argv[1:]
    if debug:
        sys.argv.remove("--debug")
    # a docker judge's containers come up while the command parses its arguments and loads its pack
    early = start_sandbox_early(app, sys.argv[1:]) or early
    try:
        app()  # usage errors, --help and typer.Exit end here with their own exit codes
    except CodegymError as exc:
        from codegym.cli.common import cli_message

        print(f"error: {cli_message(exc)}", file=sys.stderr)
        sys.exit(EXIT_USER_ERROR)
    except KeyboardInterrupt:
        print("interrupted", file=sys.stderr)
        sys.exit(130)
    except Exception as exc:
        if debug:
            traceback.print_exc()
        else:
            report = crash_report(exc)
            print(
                f"internal error (a bug in codegym): {type(exc).__name__}: {str(exc)[:300]}\n"
                f"  the traceback is in {report}; please include it in a bug report (or rerun with --debug)",
                file=sys.stderr,
            )
        sys.exit(EXIT_INTERNAL_ERROR)
    finally:
        if early:  # not claimed by the command (it failed before, or asked for another backend)
            from codegym.sandbox.backend import close_early_backends

            close_early_backends()


def crash_report(exc: BaseException) -> Path:
    """Write the traceback to a file under the cache folder (the temp folder if that fails)."""
    text = "".join(traceback.format_exception(type(exc), exc, exc.__traceback__))
    stamp = time.strftime("%Y%m%d-%H%M%S")
    for folder in (Path.home() / ".cache" / "codegym" / "crashes", Path(tempfile.gettempdir())):
        try:
            folder.mkdir(parents=True, exist_ok=True)
            path = folder / f"codegym-crash-{stamp}-{os.getpid()}.txt"
            path.write_text(f"codegym {__version__}\n{' '.join(sys.argv)}\n\n{text}", encoding="utf-8")
            return path
        except OSError:
            continue
    return Path("(could not be written)")


if __name__ == "__main__":
    main()
