"""Shared CLI plumbing: consoles, clean error exits, registry and backend construction."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from codegym.errors import CodegymError

if TYPE_CHECKING:  # imported when a command runs: `codegym --version` and `--help` stay light
    from codegym.sandbox.backend import SandboxBackend
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


class CliError(CodegymError):
    """A user-facing error: printed without a traceback, exit code 2."""


@contextlib.contextmanager
def user_errors() -> Iterator[None]:
    """Turn codegym's errors (bad input or setup) into one clear line on stderr and exit code 2.
    Anything else is a bug and reaches `codegym.cli.app.main`, which reports it (exit 4)."""
    try:
        yield
    except (CodegymError, FileNotFoundError) as exc:
        # one line, and the message as written (a `[` in a YAML error is not rich markup)
        error_console.print(f"[bold red]error:[/] {escape(str(exc))}", highlight=False, soft_wrap=True)
        raise typer.Exit(2) from exc


def registry(tasks_dir: list[Path] | None) -> TaskRegistry:
    from codegym.tasks.registry import TaskRegistry

    return TaskRegistry(tasks_dir or [])


def backend(
    name: str, workers: int, *, coverage: bool = False, ray_address: str | None = None, **options: Any
) -> SandboxBackend:
    """Create a sandbox backend; `coverage` preloads coverage.py in its workers (the reward needs it)."""
    if ray_address is not None:
        if name != "ray":
            raise CliError(f"--ray-address needs --backend ray, got --backend {name}")
        options["address"] = ray_address
    from codegym.sandbox.backend import create_backend

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
    """The --cache store (None for off); a bad spec or an unreachable server is one line."""
    from codegym.reward.cache import CacheError, open_cache

    if spec == "off":
        return None
    try:
        return open_cache(None if spec == "default" else spec)
    except CacheError as exc:
        raise CliError(f"--cache: {exc}") from exc


def yardstick_store(spec: str):
    from codegym.reward.cache import CacheError, SQLiteCache, default_yardstick_path

    if spec == "off":
        return None
    if "://" in spec:  # taken as a path, it would create a folder named after the scheme
        raise CliError(f"--yardsticks: unknown store {spec!r}; use default, off or a .sqlite file path")
    try:
        return SQLiteCache(default_yardstick_path() if spec == "default" else Path(spec))
    except CacheError as exc:
        raise CliError(f"--yardsticks: {exc}") from exc


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))
