"""`codegym sandbox ...`: inspect and manage sandbox backends."""

from __future__ import annotations

import typer
from rich.table import Table

from codegym.cli.common import BackendOption, WorkersOption, backend, console, print_json, user_errors

app = typer.Typer(help="Inspect and manage sandbox backends.", no_args_is_help=True)


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
    pool = Table("slot", "pid", "python", "uid", "pid namespace", title="workers")
    for worker in data.get("pool", []):
        pool.add_row(
            str(worker.get("slot")),
            str(worker.get("pid")),
            str(worker.get("python", "")),
            str(worker.get("sandbox_uid") or worker.get("uid")),
            str(worker.get("pid_namespace", "")),
        )
    console.print(pool)
