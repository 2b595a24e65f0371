"""Shared CLI plumbing: consoles, clean error exits, registry and backend construction."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import typer
from rich.console import Console

from codegym.sandbox.backend import SandboxBackend, SandboxUnavailable, create_backend
from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.registry import TaskRegistry

console = Console()
error_console = Console(stderr=True)

TasksDirOption = typer.Option(
    None, "--tasks-dir", help="Extra directory of task packs (searched before ./tasks and the bundled packs)."
)
BackendOption = typer.Option("local", "--backend", "-b", help="Sandbox backend: local or docker.")
WorkersOption = typer.Option(
    0, "--workers", "-w", help="Sandbox workers (0 = the backend default: two per CPU core)."
)


class CliError(Exception):
    """A user-facing error: printed without a traceback, exit code 2."""


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn known input/setup errors into one clear line on stderr and exit code 2."""
    try:
        yield
    except (
        TaskPackError,
        UnknownNameError,
        SandboxUnavailable,
        CliError,
        FileNotFoundError,
        ValueError,
    ) as exc:
        error_console.print(f"[bold red]error:[/] {exc}", highlight=False)
        raise typer.Exit(2) from exc


def registry(tasks_dir: list[Path] | None) -> TaskRegistry:
    return TaskRegistry(tasks_dir or [])


def backend(name: str, workers: int, **options: Any) -> SandboxBackend:
    if workers:
        options["workers"] = workers
    return create_backend(name, **options)


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))
