"""The `codegym` console script. A judge on the default local sandbox begins its workers here,
before typer and the commands are imported, so that they are up by the time the command has parsed
its arguments and loaded its pack (see `codegym.cli.early`); everything else is `codegym.cli.app`.

A judge that succeeded ends without the interpreter's teardown: by then its rows are written and its
files, stores and workers closed, and freeing the command's modules one by one took ~30 ms after
the last row (a fifth of a 160-sample judge's start-up and exit together)."""

from __future__ import annotations

import sys


def main() -> None:
    from codegym.cli.early import start_default_sandbox_early

    argv = [arg for arg in sys.argv[1:] if arg != "--debug"]
    early = start_default_sandbox_early(argv)
    from codegym.cli.app import main as run

    if not argv or argv[0] != "judge":
        run(early)
        return
    try:
        run(early)
    except SystemExit as exc:
        if exc.code not in (None, 0):
            raise
    exit_without_teardown()


def exit_without_teardown() -> None:
    """Exit 0 now: the `atexit` functions run and the standard streams are flushed, then the process
    ends as the worker's does (`os._exit`); a stream that cannot be flushed leaves the exit to
    the interpreter, which reports it as it always does."""
    import atexit
    import os
    import threading

    if threading.active_count() > 1:  # a thread still at work (none is, after a judge): let it end
        raise SystemExit(0)
    atexit._run_exitfuncs()
    try:
        sys.stdout.flush()
        sys.stderr.flush()
    except (OSError, ValueError):
        raise SystemExit(0) from None
    os._exit(0)
