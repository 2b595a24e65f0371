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
BackendOption = typer.Option(
    "local",
    "--backend",
    "-b",
    help="Sandbox backend: local, docker, ray (a Ray cluster's nodes), or http://HOST:PORT "
    "(a `codegym serve` judge service; token from CODEGYM_SERVE_TOKEN).",
)
RayAddressOption = typer.Option(
    None,
    "--ray-address",
    help="With --backend ray: `auto` joins the running cluster, HOST:PORT or ray://HOST:PORT that one; "
    "without it a local Ray instance is started.",
)
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


def backend(
    name: str, workers: int, *, coverage: bool = False, ray_address: str | None = None, **options: Any
) -> SandboxBackend:
    """Create a sandbox backend; `coverage` preloads coverage.py in its workers (the reward needs it)."""
    if ray_address is not None:
        if name != "ray":
            raise CliError(f"--ray-address needs --backend ray, got --backend {name}")
        options["address"] = ray_address
    return create_backend(name, workers=workers, coverage=coverage, **options)


RewardConfigOption = typer.Option(
    None, "--reward-config", help="Reward YAML (default: configs/reward/default.yaml's settings)."
)
CacheOption = typer.Option(
    "default",
    "--cache",
    help="Result cache: default (SQLite under ~/.cache/codegym), a .sqlite path, redis://..., memory, off.",
)
YardsticksOption = typer.Option(
    "default",
    "--yardsticks",
    help="Where the reference solutions' measurements (per task and machine) are kept across runs, "
    "even with --cache off: default (~/.cache/codegym/yardsticks.sqlite), a .sqlite path, off.",
)


def reward_config(path: Path | None):
    from codegym.reward.config import RewardConfig

    return RewardConfig.from_yaml(path) if path is not None else RewardConfig()


def result_cache(spec: str):
    from codegym.reward.cache import open_cache

    if spec == "off":
        return None
    return open_cache(None if spec == "default" else spec)


def yardstick_store(spec: str):
    from codegym.reward.cache import SQLiteCache, default_yardstick_path

    if spec == "off":
        return None
    return SQLiteCache(default_yardstick_path() if spec == "default" else Path(spec))


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))
