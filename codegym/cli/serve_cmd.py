"""`codegym serve`: the judge service (Ray Serve) on HOST:PORT until interrupted."""

from __future__ import annotations

import signal
import threading
from pathlib import Path

import typer

from codegym.cli.common import CliError, TasksDirOption, user_errors


def serve(
    host: str = typer.Option("127.0.0.1", "--host", help="Address to bind; not loopback needs a token."),
    port: int = typer.Option(8600, "--port", help="HTTP port."),
    min_replicas: int = typer.Option(1, "--min-replicas", help="Fewest judge replicas."),
    max_replicas: int = typer.Option(
        2, "--max-replicas", help="Most judge replicas (autoscaled on queue depth)."
    ),
    workers: int = typer.Option(
        0, "--workers", "-w", help="Sandbox workers per replica (0 = one per usable CPU)."
    ),
    cache: str = typer.Option(
        "default", "--cache", help="Reward cache: redis://... (shared), default, memory, off."
    ),
    reward_config: Path = typer.Option(None, "--reward-config", help="Reward YAML."),
    token_file: Path = typer.Option(None, "--token-file", help="File holding the bearer token."),
    token_env: str = typer.Option(
        "CODEGYM_SERVE_TOKEN", "--token-env", help="Env var holding the bearer token."
    ),
    ray_address: str = typer.Option(None, "--ray-address", help="Ray cluster (default: a local instance)."),
    tasks_dir: list[Path] = TasksDirOption,
) -> None:
    """Serve the judge over HTTP: POST /v1/judge, /healthz, /readyz, /metrics."""
    from codegym.serve.config import ServeConfig
    from codegym.serve.launch import start_service, stop_service

    with user_errors():
        config = ServeConfig(
            host=host,
            port=port,
            min_replicas=min_replicas,
            max_replicas=max_replicas,
            workers_per_replica=workers,
            cache=cache,
            reward_config=str(reward_config) if reward_config else None,
            tasks_dirs=tuple(str(p) for p in tasks_dir or ()),
            token_file=str(token_file) if token_file else None,
            token_env=token_env,
            address=ray_address,
        )
        try:
            url = start_service(config)
        except RuntimeError as exc:
            stop_service()
            raise CliError(str(exc)) from exc
    print(f"serving on {url}", flush=True)
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    try:
        stop.wait()
    except KeyboardInterrupt:
        pass
    finally:
        stop_service()
