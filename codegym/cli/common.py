"""Shared CLI plumbing: consoles, clean error exits, registry and backend construction."""

from __future__ import annotations

import contextlib
import json
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer
from rich.console import Console
from rich.markup import escape

from codegym.errors import CodegymError, Setting

if TYPE_CHECKING:  # imported when a command runs: `codegym --version` and `--help` stay light
    from codegym.reward.config import RewardConfig
    from codegym.reward.session import JudgingOptions
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
    0, "--workers", "-w", help="Sandbox workers (0 = the backend default: one per usable CPU)."
)


class CliError(CodegymError):
    """A user-facing error: printed without a traceback, exit code 2."""


# The library names a setting the user can change by its own name (a parameter or config field);
# the CLI shows the flag that sets it: `--` and the name with dashes, except where they differ.
FLAG_NAMES = {
    "ks": "--k",
    "out_path": "--out",
    "out_dir": "--out",
    "output.dir": "--output-dir",
    "database_url": "--db",
    "filters": "--filter",
    "options": "--option",
}


def flag(setting: Setting, names: Mapping[str, str] | None = None) -> str:
    """`setting` as the command line writes it: `--overwrite`, `--resume auto`, `--k`. `names`: a
    command's own names for settings it has no flag for (train: `cache` is `output.cache`)."""
    if names and setting.name in names:
        return names[setting.name] if setting.value is None else f"{names[setting.name]}={setting.value}"
    name = FLAG_NAMES.get(setting.name, "--" + setting.name.replace("_", "-"))
    if setting.value is None or setting.value is True:
        return name
    if setting.value is False:
        return "--no-" + name.removeprefix("--")
    return f"{name} {setting.value}"


def cli_message(exc: BaseException, names: Mapping[str, str] | None = None) -> str:
    """An error's message with the settings it names written as flags."""
    if isinstance(exc, CodegymError):
        return exc.render(lambda setting: flag(setting, names))
    return str(exc)


@contextlib.contextmanager
def user_errors(names: Mapping[str, str] | None = None) -> Iterator[None]:
    """Turn codegym's errors (bad input or setup) into one clear line on stderr and exit code 2,
    naming settings as flags (or as `names` says). Anything else is a bug and reaches
    `codegym.cli.app.main`, which reports it (exit 4)."""
    try:
        yield
    except (CodegymError, FileNotFoundError) as exc:
        # one line, and the message as written (a `[` in a YAML error is not rich markup)
        error_console.print(
            f"[bold red]error:[/] {escape(cli_message(exc, names))}", highlight=False, soft_wrap=True
        )
        raise typer.Exit(2) from exc


def registry(tasks_dir: list[Path] | None) -> TaskRegistry:
    from codegym.tasks.registry import TaskRegistry

    return TaskRegistry(tasks_dir or [])


def backend(
    name: str, workers: int, *, coverage: bool = False, ray_address: str | None = None, **options: Any
) -> SandboxBackend:
    """Create a sandbox backend; `coverage` preloads coverage.py in its workers (the reward needs it)."""
    from codegym.sandbox.backend import create_backend

    options.update(_ray_options(name, ray_address))
    return create_backend(name, workers=workers, coverage=coverage, **options)


def judging_options(
    name: str,
    workers: int,
    *,
    ray_address: str | None = None,
    reward: RewardConfig | None,
    cache: str,
    yardsticks: str,
) -> JudgingOptions:
    """The flags of a judging command (--backend, --workers, --ray-address, --cache, --yardsticks)
    as the options of a `JudgeSession`."""
    from codegym.reward.session import JudgingOptions

    return JudgingOptions(
        backend=name,
        workers=workers,
        backend_options=_ray_options(name, ray_address),
        reward=reward,
        cache=cache,
        yardsticks=yardsticks,
    )


def _ray_options(name: str, ray_address: str | None) -> dict[str, Any]:
    if ray_address is None:
        return {}
    if name != "ray":
        raise CliError(f"--ray-address needs --backend ray, got --backend {name}")
    return {"address": ray_address}


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
    "even with --cache off: default (~/.cache/codegym/yardsticks.sqlite), a .sqlite path, memory, off.",
)


def reward_config(path: Path | None) -> RewardConfig:
    from codegym.reward.config import RewardConfig

    return RewardConfig.from_yaml(path) if path is not None else RewardConfig()


def print_json(data: Any) -> None:
    print(json.dumps(data, indent=2, default=str))
