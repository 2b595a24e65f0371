"""`codegym sandbox ...`: inspect and manage sandbox backends and the docker sandbox image."""

from __future__ import annotations

import typer
from rich.table import Table

from codegym.cli.common import (
    BackendOption,
    CliError,
    WorkersOption,
    backend,
    console,
    print_json,
    user_errors,
)

app = typer.Typer(help="Inspect and manage sandbox backends.", no_args_is_help=True)

DockerHostOption = typer.Option(
    "", "--docker-host", help="Docker engine URL (default: DOCKER_HOST or the local socket)."
)


@app.command("info")
def info(
    backend_name: str = BackendOption,
    workers: int = WorkersOption,
    as_json: bool = typer.Option(False, "--json", help="Machine-readable output."),
) -> None:
    """Start the backend's workers and show how it isolates, its image and its pool."""
    with user_errors(), backend(backend_name, workers) as sandbox:
        sandbox.start()
        data = sandbox.info()
    if as_json:
        print_json(data)
        return
    table = Table("property", "value", title=f"sandbox backend: {data.get('backend')}")
    for key, value in data.items():
        if key == "pool":
            continue
        table.add_row(key, ", ".join(map(str, value)) if isinstance(value, list) else str(value))
    console.print(table)
    workers_info = data.get("pool", [])
    docker = any("container" in worker for worker in workers_info)
    columns = ("slot", "container", "pid", "uid", "alive", "python") if docker else ("slot", "pid", "python")
    pool = Table(*columns, *(() if docker else ("uid", "pid namespace")), title="workers")
    for worker in workers_info:
        cells = [str(worker.get(column, "")) for column in columns]
        if not docker:
            uid = worker.get("sandbox_uid") or worker.get("uid")
            cells += [str(uid), str(worker.get("pid_namespace", ""))]
        pool.add_row(*cells)
    console.print(pool)


@app.command("build")
def build(
    base: str = typer.Option(
        "auto", "--base", help="How to make the base: auto (registry if reachable), registry or debootstrap."
    ),
    mirror: str = typer.Option("", "--mirror", help="Debian mirror for debootstrap (default: the host's)."),
    force: bool = typer.Option(False, "--force", help="Rebuild even if the content-hash tag exists."),
    docker_host: str = DockerHostOption,
) -> None:
    """Build the docker sandbox image (idempotent: tagged by the hash of its recipe and runner)."""
    from codegym.sandbox.docker import Engine, build_image

    with user_errors():
        if base not in ("auto", "registry", "debootstrap"):
            raise CliError(f"--base must be auto, registry or debootstrap, got {base!r}")
        engine = Engine(docker_host)
        try:
            outcome = build_image(
                engine,
                base=base,  # type: ignore[arg-type]
                mirror=mirror or None,
                force=force,
                progress=lambda line: console.print(line, highlight=False, markup=False, soft_wrap=True),
            )
        finally:
            engine.close()
    state = "built" if outcome.built else "up to date"
    console.print(
        f"{outcome.reference} {state}: {outcome.image_id} (base: {outcome.base_source})", soft_wrap=True
    )


@app.command("image")
def image(docker_host: str = DockerHostOption) -> None:
    """Print the image reference the docker backend will use (on the last line) and its state."""
    from codegym.sandbox.backend import SandboxUnavailable
    from codegym.sandbox.docker import Engine, default_image_reference, image_status

    with user_errors():
        reference = default_image_reference()
        try:
            engine = Engine(docker_host)
        except SandboxUnavailable as exc:
            console.print(f"engine: {exc}", highlight=False, markup=False, soft_wrap=True)
        else:
            try:
                status = image_status(engine, reference)
            finally:
                engine.close()
            if status["present"]:
                console.print(
                    f"present: {status['id']} ({status['size_mb']} MB, base: {status['base_source']})",
                    highlight=False,
                    soft_wrap=True,
                )
            else:
                console.print("present: no (run `codegym sandbox build`)", highlight=False)
    print(reference)


@app.command("cleanup")
def cleanup(
    everything: bool = typer.Option(
        False, "--all", help="Remove every codegym sandbox container, also those of running processes."
    ),
    docker_host: str = DockerHostOption,
) -> None:
    """Remove sandbox containers left behind by processes that are gone (or all with --all)."""
    from codegym.sandbox.docker import Engine, cleanup_containers

    with user_errors():
        engine = Engine(docker_host)
        try:
            report = cleanup_containers(engine, everything=everything)
        finally:
            engine.close()
    console.print(f"removed {len(report.removed)} container(s)", highlight=False)
    kept = len(report.kept_alive_owner) + len(report.kept_unknown_owner)
    if kept:
        console.print(
            f"kept {len(report.kept_alive_owner)} of running processes and "
            f"{len(report.kept_unknown_owner)} whose owner this process cannot see (use --all)",
            highlight=False,
        )
