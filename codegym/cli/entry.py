"""The `codegym` console script. A judge on the default local sandbox begins its workers here,
before typer and the commands are imported, so that they are up by the time the command has parsed
its arguments and loaded its pack (see `codegym.cli.early`); everything else is `codegym.cli.app`."""

from __future__ import annotations

import sys


def main() -> None:
    from codegym.cli.early import start_default_sandbox_early

    early = start_default_sandbox_early([arg for arg in sys.argv[1:] if arg != "--debug"])
    from codegym.cli.app import main as run

    run(early)
