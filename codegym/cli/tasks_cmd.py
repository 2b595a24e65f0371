"""`codegym tasks list|show|check`."""

from __future__ import annotations

from pathlib import Path

import typer
from rich.markup import escape
from rich.table import Table
from rich.text import Text

from codegym.cli.common import (
    BackendOption,
    TasksDirOption,
    WorkersOption,
    backend,
    console,
    error_console,
    print_json,
    registry,
    user_errors,
)
from codegym.errors import CodegymError

app = typer.Typer(help="List, inspect and validate task packs.", no_args_is_help=True)


@app.command("list")
def list_packs(tasks_dir: list[Path] = TasksDirOption, as_json: bool = typer.Option(False, "--json")) -> None:
    """List every discovered task pack."""
    with user_errors():
        reg = registry(tasks_dir)
        rows = []
        broken = 0
        for name in reg.names():
            try:
                pack = reg.load(name)
            except CodegymError as exc:  # listed with what is wrong; the other packs still load
                broken += 1
                rows.append(
                    {
                        "name": name,
                        "version": "",
                        "tasks": 0,
                        "format": "broken",
                        "hash": "",
                        "origin": reg.origin(name),
                        "error": str(exc),
                    }
                )
                continue
            rows.append(
                {
                    "name": name,
                    "version": pack.version,
                    "tasks": len(pack),
                    "format": pack.format,
                    "hash": pack.content_hash[:12],
                    "origin": reg.origin(name),
                }
            )
    if as_json:
        print_json(rows)
    else:
        table = Table("pack", "version", "tasks", "format", "hash", "origin")
        for row in rows:
            table.add_row(
                row["name"], row["version"], str(row["tasks"]), row["format"], row["hash"], row["origin"]
            )
        console.print(table)
        for row in rows:
            if "error" in row:
                error_console.print(
                    f"[bold red]broken pack {row['name']}:[/] {escape(row['error'])}", soft_wrap=True
                )
    if broken:
        raise typer.Exit(1)


@app.command("show")
def show(
    pack: str = typer.Argument(..., help="Pack name."),
    task: str = typer.Argument(None, help="Task name or id; omit to list the pack's tasks."),
    tasks_dir: list[Path] = TasksDirOption,
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Show a pack's tasks, or one task's prompt, files and limits (hidden tests are not printed)."""
    with user_errors():
        task_pack = registry(tasks_dir).load(pack)
        if task is None:
            rows = [
                {
                    "task_id": t.task_id,
                    "entry_point": t.entry_point,
                    "repo_files": len(t.repo_files),
                    "tags": list(t.metadata.get("tags") or []),
                }
                for t in task_pack.tasks.values()
            ]
            if as_json:
                print_json(
                    {
                        "name": task_pack.name,
                        "version": task_pack.version,
                        "description": task_pack.description,
                        "tasks": rows,
                    }
                )
                return
            console.print(f"[bold]{task_pack.name}[/] {task_pack.version} — {task_pack.description}")
            table = Table("task_id", "entry_point", "repo files", "tags")
            for row in rows:
                table.add_row(
                    row["task_id"], row["entry_point"] or "", str(row["repo_files"]), ", ".join(row["tags"])
                )
            console.print(table)
            return
        item = task_pack.get(task)
    details = {
        "task_id": item.task_id,
        "entry_point": item.entry_point,
        "solution_path": item.solution_path,
        "limits": vars(item.limits),
        "repo_files": sorted(item.repo_files),
        "hidden_test_files": sorted(item.hidden_tests.files),
        "visible_test_files": sorted(item.visible_tests.files),
        "prompt": item.prompt,
        "starter": item.prefix,
        "source": item.source,
    }
    if as_json:
        print_json(details)
        return
    console.print(f"[bold]{item.task_id}[/]  (writes {item.solution_path}; entry point {item.entry_point})")
    console.print(f"limits: {details['limits']}", highlight=False)
    if item.repo_files:
        console.print(f"repo files: {', '.join(details['repo_files'])}", highlight=False)
    console.rule("prompt")
    console.print(item.prompt, markup=False, highlight=False)
    if item.prefix and item.prefix != item.prompt:
        console.rule("starter")
        console.print(item.prefix, markup=False, highlight=False)


@app.command("check")
def check(
    pack: str = typer.Argument(None, help="Pack to check; omit to check every pack."),
    task: list[str] = typer.Option(None, "--task", "-t", help="Only these tasks."),
    backend_name: str = BackendOption,
    workers: int = WorkersOption,
    tasks_dir: list[Path] = TasksDirOption,
) -> None:
    """Validate tasks: schema, files, reference passes its tests in the sandbox, a `pass` body fails."""
    from codegym.eval.pack_check import check_pack

    failures = 0
    with user_errors():
        reg = registry(tasks_dir)
        names = [pack] if pack else reg.names()
        with backend(backend_name, workers) as sandbox:
            for name in names:
                try:
                    task_pack = reg.load(name)
                except CodegymError as exc:  # report it and go on: every problem is listed
                    failures += 1
                    console.print(Text.assemble((f"{name}: ✗ ", "red"), str(exc)), soft_wrap=True)
                    continue
                results = check_pack(task_pack, sandbox, task_ids=task or None)
                bad = [r for r in results if not r.ok]
                failures += len(bad)
                mark = "[green]ok[/]" if not bad else f"[red]{len(bad)} failing[/]"
                console.print(f"{name} {task_pack.version}: {len(results)} tasks checked, {mark}")
                for result in bad:
                    for problem in result.problems:
                        line = Text.assemble(("  ✗ ", "red"), f"{result.task_id}: {problem}")
                        console.print(line, soft_wrap=True, highlight=False)
    if failures:
        raise typer.Exit(1)


@app.command("import")
def import_(
    dataset_format: str = typer.Argument(
        ...,
        metavar="FORMAT",
        help="apps, taco, code_contests, livecodebench, mbpp, evalplus, kodcode or open-r1.",
    ),
    source: str = typer.Argument(
        ..., help="A local JSON/JSONL/JSONL.gz/parquet file (apps: also a folder of problem folders)."
    ),
    name: str = typer.Option(..., "--name", help="Name of the pack (and of its folder)."),
    out: Path = typer.Option(..., "--out", help="Folder to write the pack into (DIR/NAME/)."),
    filters: list[str] = typer.Option(
        None, "--filter", help="Keep rows where FIELD OP VALUE holds (OP: = != >= <= > < ~); repeatable."
    ),
    limit: int = typer.Option(None, "--limit", help="Keep at most N rows (after filters and skips)."),
    checker: Path = typer.Option(
        None, "--checker", help="A checker.py (check(input, expected, actual)) for stdin/stdout problems."
    ),
    option: list[str] = typer.Option(
        None,
        "--option",
        help="KEY=VALUE reader option written to pack.yaml `options:` (e.g. contest_date_from=2024-08-01).",
    ),
    as_json: bool = typer.Option(False, "--json"),
) -> None:
    """Import a published dataset (in its own schema) as a task pack."""
    from codegym.tasks.formats.importer import RowFilter, import_dataset, parse_option

    with user_errors():
        parsed = [RowFilter.parse(text) for text in filters or []]
        options = dict(parse_option(text) for text in option or [])
        report = import_dataset(
            dataset_format,
            source,
            name=name,
            out_dir=out,
            filters=parsed,
            limit=limit,
            checker=checker,
            options=options,
        )
    if as_json:
        print_json(report.to_dict())
        return
    summary = report.to_dict()
    console.print(
        f"{name}: {summary['kept']} tasks from {summary['rows_read']} rows "
        f"({summary['filtered_out']} filtered out, {summary['skipped']} skipped) -> {report.pack_dir}",
        highlight=False,
    )
    for reason, count in summary["skipped_reasons"].items():
        console.print(f"  skipped {count}: {reason}", highlight=False, soft_wrap=True)
    if report.skipped:
        console.print(f"  (every skipped row and why: {report.pack_dir / 'skipped.jsonl'})", highlight=False)
