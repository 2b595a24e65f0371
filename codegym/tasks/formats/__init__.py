"""Published dataset schemas as task packs: readers, the pack loader, and `tasks import`.

A pack in a dataset's schema is a folder with `pack.yaml` (`format:` one of `FORMAT_NAMES`, `data:`
the rows file, optional `checker:` and `options:`) and the rows exactly as the dataset publishes
them (stringified JSON fields stay strings). Loading a pack runs the format's reader over the rows.
"""

from __future__ import annotations

import dataclasses
import hashlib
import importlib
from pathlib import Path
from typing import Any

from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.formats.base import DatasetFormat, RowContext, SkipRow, read_rows
from codegym.tasks.model import Limits, Task, TaskPack

# format name -> module defining it (imported on first use: readers pull in zlib/pyarrow/...)
_FORMAT_MODULES = {
    "apps": "codegym.tasks.formats.apps",
    "taco": "codegym.tasks.formats.apps",
    "code_contests": "codegym.tasks.formats.code_contests",
    "livecodebench": "codegym.tasks.formats.livecodebench",
    "mbpp": "codegym.tasks.formats.mbpp",
    "evalplus": "codegym.tasks.formats.evalplus",
    "kodcode": "codegym.tasks.formats.kodcode",
    "open-r1": "codegym.tasks.formats.open_r1",
}
FORMAT_NAMES: tuple[str, ...] = tuple(_FORMAT_MODULES)


def get_format(name: str) -> DatasetFormat:
    """The reader of a dataset format; unknown names list the valid ones."""
    module_name = _FORMAT_MODULES.get(name)
    if module_name is None:
        raise UnknownNameError("dataset format", name, FORMAT_NAMES)
    module = importlib.import_module(module_name)
    formats: dict[str, DatasetFormat] = module.FORMATS
    return formats[name]


def pack_context(pack_dir: Path, header: dict[str, Any], base_limits: Limits) -> RowContext:
    """The row context of a pack folder: its checker source and options from pack.yaml."""
    name = header["name"]
    pack_file = str(pack_dir / "pack.yaml")
    checker = None
    checker_name = header.get("checker")
    if checker_name is not None:
        if not isinstance(checker_name, str):
            raise TaskPackError(
                "must name a file in the pack folder", pack=name, file=pack_file, field="checker"
            )
        try:
            checker = (pack_dir / checker_name).read_text(encoding="utf-8")
        except OSError as exc:
            raise TaskPackError(
                f"cannot read it: {exc.strerror}", pack=name, file=pack_file, field="checker"
            ) from None
        try:
            compile(checker, checker_name, "exec")
        except SyntaxError as exc:
            raise TaskPackError(
                f"is not valid Python (line {exc.lineno}: {exc.msg})",
                pack=name,
                file=pack_file,
                field="checker",
            ) from None
    options = header.get("options") or {}
    if not isinstance(options, dict):
        raise TaskPackError("must be a mapping", pack=name, file=pack_file, field="options")
    return RowContext(
        pack=name, file=str(pack_dir / header["data"]), limits=base_limits, checker=checker, options=options
    )


def tasks_from_rows(
    dataset_format: DatasetFormat, rows: Any, context: RowContext, *, skip: bool
) -> tuple[dict[str, Task], list[tuple[str, str]]]:
    """Tasks by id, and (id, reason) of the rows left out. With `skip` false a row that cannot be
    judged is an error naming it (a pack on disk must load whole); with `skip` true it is reported."""
    tasks: dict[str, Task] = {}
    skipped: list[tuple[str, str]] = []
    for number, row in enumerate(rows, 1):
        row_context = dataclasses.replace(context, line=number)
        try:
            row_id = dataset_format.row_id(row)
        except (KeyError, TypeError, ValueError):
            row_id = f"row {number}"
        try:
            task = dataset_format.task_from_row(row, row_context)
        except SkipRow as exc:
            if not skip:
                raise row_context.error(f"cannot be judged: {exc}", task=row_id) from None
            skipped.append((row_id, str(exc)))
            continue
        except TaskPackError as exc:
            if not skip:
                raise
            skipped.append(
                (row_id, exc.reason if exc.field is None else f"field {exc.field!r}: {exc.reason}")
            )
            continue
        if task.name in tasks:
            error = row_context.error("repeats a task id", task=task.name)
            if not skip:
                raise error
            skipped.append((row_id, "repeats a task id"))
            continue
        tasks[task.name] = task
    return tasks, skipped


def load_format_pack(pack_dir: Path, header: dict[str, Any], base_limits: Limits) -> TaskPack:
    """A pack folder whose rows are in a dataset's published schema."""
    name = header["name"]
    dataset_format = get_format(header["format"])
    data = header.get("data")
    if not isinstance(data, str) or not (pack_dir / data).is_file():
        raise TaskPackError(
            "must name the rows file (relative to the pack folder)",
            pack=name,
            file=str(pack_dir / "pack.yaml"),
            field="data",
        )
    context = pack_context(pack_dir, header, base_limits)
    tasks, _ = tasks_from_rows(dataset_format, read_rows(pack_dir / data), context, skip=False)
    if not tasks:
        raise TaskPackError("holds no rows", pack=name, file=context.file)
    digest = hashlib.sha256()
    for part in ("pack.yaml", data, header.get("checker")):
        if part:
            digest.update(part.encode() + b"\0" + (pack_dir / part).read_bytes())
    return TaskPack(
        name=name,
        version=header["version"],
        description=str(header.get("description", "")),
        content_hash=digest.hexdigest(),
        tasks=tasks,
        source=str(pack_dir),
        format=header["format"],
    )
