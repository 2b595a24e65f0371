"""`codegym tasks import`: rows of a published dataset -> a pack folder in that dataset's schema.

The pack keeps the rows as published (only the rows kept, as JSONL.gz), with a `pack.yaml` naming
the format and recording where the rows came from (file, its sha256, filters, counts). Rows the
reader cannot judge are reported in `skipped.jsonl` and left out. The pack is written next to its
final place and moved there only when it loads; a folder that `tasks import` did not write is never
replaced.
"""

from __future__ import annotations

import dataclasses
import datetime
import gzip
import hashlib
import json
import os
import re
import shutil
import tempfile
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import yaml

from codegym.errors import BadValue, Setting
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats import get_format, load_format_pack
from codegym.tasks.formats.base import RowContext, SkipRow
from codegym.tasks.model import Limits, TaskPack

DATA_FILE = "problems.jsonl.gz"
SKIPPED_FILE = "skipped.jsonl"
CHECKER_FILE = "checker.py"
_FILTER = re.compile(r"^\s*([A-Za-z0-9_.]+)\s*(>=|<=|!=|=|>|<|~)\s*(.*?)\s*$")


@dataclass(frozen=True)
class RowFilter:
    """`FIELD OP VALUE` (OP one of = != >= <= > < ~, `~` meaning "contains"); FIELD is a column, or a
    key of a column that holds a JSON object (LiveCodeBench `metadata`), dotted for nesting. Values
    compare as numbers when both sides are numbers, else as text (ISO dates order correctly)."""

    field: str
    op: str
    value: str

    @classmethod
    def parse(cls, text: str) -> RowFilter:
        match = _FILTER.match(text)
        if not match:
            raise BadValue(Setting("filters"), f" {text!r}: write FIELD OP VALUE, OP one of = != >= <= > < ~")
        return cls(*match.groups())

    def matches(self, row: Mapping[str, Any]) -> bool:
        found, value = _lookup(row, self.field)
        if not found:
            return self.op == "!="
        if self.op == "~":
            return self.value in str(value)
        left, right = _comparable(value, self.value)
        return {
            "=": left == right,
            "!=": left != right,
            ">=": left >= right,
            "<=": left <= right,
            ">": left > right,
            "<": left < right,
        }[self.op]


def _lookup(row: Mapping[str, Any], dotted: str) -> tuple[bool, Any]:
    if dotted in row:
        return True, row[dotted]
    head, _, rest = dotted.partition(".")
    candidates: list[Any] = [row[head]] if head in row and rest else list(row.values())
    key = rest if head in row and rest else dotted
    for value in candidates:
        if isinstance(value, str) and value.lstrip().startswith("{"):
            try:
                value = json.loads(value)
            except json.JSONDecodeError:
                continue
        if isinstance(value, Mapping):
            current: Any = value
            for part in key.split("."):
                if not isinstance(current, Mapping) or part not in current:
                    break
                current = current[part]
            else:
                return True, current
    return False, None


def _comparable(value: Any, text: str) -> tuple[Any, Any]:
    try:
        return float(value), float(text)
    except (TypeError, ValueError):
        return str(value), text


def parse_option(text: str) -> tuple[str, Any]:
    """`KEY=VALUE` -> (key, value read as YAML: numbers, booleans, dates and lists keep their type)."""
    key, sep, value = text.partition("=")
    if not sep or not key.strip().isidentifier():
        raise BadValue(Setting("options"), f" {text!r}: write KEY=VALUE")
    try:
        return key.strip(), yaml.safe_load(value)
    except yaml.YAMLError:
        return key.strip(), value


@dataclass
class ImportReport:
    format: str
    source: str
    pack_dir: Path
    rows_read: int = 0
    filtered_out: int = 0
    kept: int = 0
    skipped: list[tuple[str, str]] = field(default_factory=list)
    pack: TaskPack | None = None

    def to_dict(self) -> dict[str, Any]:
        return {
            "format": self.format,
            "source": self.source,
            "pack_dir": str(self.pack_dir),
            "rows_read": self.rows_read,
            "filtered_out": self.filtered_out,
            "kept": self.kept,
            "skipped": len(self.skipped),
            "skipped_reasons": _reason_counts(self.skipped),
            "content_hash": self.pack.content_hash if self.pack else None,
        }


def _reason_counts(skipped: Sequence[tuple[str, str]]) -> dict[str, int]:
    counts: dict[str, int] = {}
    for _, reason in skipped:
        key = reason.split(":")[0][:80]
        counts[key] = counts.get(key, 0) + 1
    return counts


def import_dataset(
    format_name: str,
    source: str | Path,
    *,
    name: str,
    out_dir: Path,
    filters: Iterable[RowFilter] = (),
    limit: int | None = None,
    checker: Path | None = None,
    options: Mapping[str, Any] | None = None,
) -> ImportReport:
    """Read SOURCE in FORMAT's schema, keep the rows that pass the filters and can be judged (up to
    `limit`), and write the pack `out_dir/name`."""
    dataset_format = get_format(format_name)
    if not name or "/" in name or name.startswith("."):
        raise BadValue(Setting("name"), f" must be a folder name without '/', got {name!r}")
    if limit is not None and limit < 1:
        raise BadValue(Setting("limit"), f" must be >= 1, got {limit}")
    source_path = Path(source)
    pack_dir = Path(out_dir) / name
    _check_replaceable(pack_dir)
    checker_source = _read_checker(checker) if checker is not None else None
    report = ImportReport(format_name, str(source), pack_dir)
    context = RowContext(
        pack=name, file=str(source), limits=Limits(), checker=checker_source, options=dict(options or {})
    )
    filters = list(filters)
    kept_rows: list[dict[str, Any]] = []
    numbers: list[int] = []
    seen_ids: set[str] = set()

    def judgeable(row: dict[str, Any], number: int) -> bool:
        row_context = dataclasses.replace(context, line=number)
        row_id = _row_id(dataset_format, row, number)
        try:
            task = dataset_format.task_from_row(row, row_context)
        except SkipRow as exc:
            report.skipped.append((row_id, str(exc)))
            return False
        except TaskPackError as exc:
            report.skipped.append(
                (row_id, f"invalid field {exc.field!r}: {exc.reason}" if exc.field else exc.reason)
            )
            return False
        if task.name in seen_ids:
            report.skipped.append((row_id, "repeats a task id"))
            return False
        seen_ids.add(task.name)
        return True

    prepare = dataset_format.prepare_rows
    for number, row in enumerate(_source_rows(dataset_format, source_path, str(source)), 1):
        report.rows_read += 1
        if not all(f.matches(row) for f in filters):
            report.filtered_out += 1
            continue
        # a format that prepares its rows (EvalPlus: the expected outputs) can judge them only after
        if prepare is not None or judgeable(row, number):
            kept_rows.append(row)
            numbers.append(number)
        if limit is not None and len(kept_rows) >= limit:
            break
    if prepare is not None and kept_rows:
        prepared = prepare(kept_rows, context)
        kept_rows = [row for row, number in zip(prepared, numbers, strict=True) if judgeable(row, number)]
    report.kept = len(kept_rows)
    if not kept_rows:
        raise TaskPackError(
            f"no row of {source} can be imported ({report.rows_read} read, "
            f"{report.filtered_out} filtered out, {len(report.skipped)} skipped: "
            f"{_reason_counts(report.skipped)})"
        )
    report.pack = _write_pack(
        pack_dir, dataset_format.name, kept_rows, report, filters, limit, checker_source, options
    )
    return report


def _row_id(dataset_format: Any, row: Mapping[str, Any], number: int) -> str:
    try:
        return str(dataset_format.row_id(row))
    except (KeyError, TypeError, ValueError):
        return f"row {number}"


def _source_rows(dataset_format: Any, path: Path, source: str) -> Iterator[dict[str, Any]]:
    if path.exists():
        try:
            yield from dataset_format.rows(path)
        except OSError as exc:
            raise TaskPackError(f"cannot read it: {exc.strerror or exc}", file=source) from None
        return
    if re.fullmatch(r"[\w.-]+/[\w.-]+(:[\w.-]+)?", source):
        yield from _hub_rows(source)
        return
    raise TaskPackError("no such file or folder", file=source)


def _hub_rows(source: str) -> Iterator[dict[str, Any]]:
    """A dataset name on the Hugging Face hub (`org/name[:split]`), where the hub is reachable."""
    name, _, split = source.partition(":")
    try:
        from datasets import load_dataset

        dataset = load_dataset(name, split=split or "test")
    except Exception as exc:  # offline, unknown name, gated: one line, not a traceback
        raise TaskPackError(
            "is neither a local file nor a dataset the hub serves here "
            f"({type(exc).__name__}: {str(exc)[:200]})",
            file=source,
        ) from None
    for row in dataset:
        yield dict(row)


def _check_replaceable(pack_dir: Path) -> None:
    if not pack_dir.exists():
        return
    header = pack_dir / "pack.yaml"
    try:
        content = yaml.safe_load(header.read_text(encoding="utf-8"))
    except (OSError, yaml.YAMLError):
        content = None
    imported = isinstance(content, dict) and "imported" in content
    if not pack_dir.is_dir() or not imported:
        raise BadValue(
            f"{pack_dir} exists and was not written by `codegym tasks import`: choose another ",
            Setting("name"),
            " or ",
            Setting("out_dir"),
        )


def _read_checker(path: Path) -> str:
    try:
        source = path.read_text(encoding="utf-8")
        compile(source, str(path), "exec")
    except OSError as exc:
        raise TaskPackError(f"cannot read it: {exc.strerror}", file=str(path), field="checker") from None
    except SyntaxError as exc:
        raise TaskPackError(f"is not valid Python (line {exc.lineno}: {exc.msg})", file=str(path)) from None
    return source


def _jsonable(value: Any) -> Any:
    if isinstance(value, (datetime.date, datetime.datetime)):
        return value.isoformat()
    if isinstance(value, bytes):
        return value.decode("utf-8", "replace")
    return str(value)


def _write_pack(
    pack_dir: Path,
    format_name: str,
    rows: list[dict[str, Any]],
    report: ImportReport,
    filters: Sequence[RowFilter],
    limit: int | None,
    checker: str | None,
    options: Mapping[str, Any] | None,
) -> TaskPack:
    pack_dir.parent.mkdir(parents=True, exist_ok=True)
    staging = Path(tempfile.mkdtemp(prefix=f".{pack_dir.name}.", dir=pack_dir.parent))
    try:
        with gzip.open(staging / DATA_FILE, "wt", encoding="utf-8") as handle:
            for row in rows:
                handle.write(json.dumps(row, ensure_ascii=False, default=_jsonable) + "\n")
        with open(staging / SKIPPED_FILE, "w", encoding="utf-8") as handle:
            for row_id, reason in report.skipped:
                handle.write(json.dumps({"id": row_id, "reason": reason}) + "\n")
        header: dict[str, Any] = {
            "name": pack_dir.name,
            "version": "1.0.0",
            "description": f"{format_name} rows imported from {Path(report.source).name}",
            "format": format_name,
            "data": DATA_FILE,
        }
        if checker is not None:
            (staging / CHECKER_FILE).write_text(checker, encoding="utf-8")
            header["checker"] = CHECKER_FILE
        if options:
            header["options"] = dict(options)
        header["imported"] = {
            "source": report.source,
            "source_sha256": _sha256(Path(report.source)),
            "date": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
            "filters": [f"{f.field}{f.op}{f.value}" for f in filters],
            "limit": limit,
            "rows_read": report.rows_read,
            "filtered_out": report.filtered_out,
            "kept": len(rows),
            "skipped": len(report.skipped),
        }
        (staging / "pack.yaml").write_text(yaml.safe_dump(header, sort_keys=False), encoding="utf-8")
        pack = load_format_pack(staging, {**header, "name": pack_dir.name}, Limits())
        os.chmod(staging, 0o755)
        old = None
        if pack_dir.exists():
            old = pack_dir.with_name(f".{pack_dir.name}.replaced")
            shutil.rmtree(old, ignore_errors=True)
            pack_dir.rename(old)
        staging.rename(pack_dir)
        if old is not None:
            shutil.rmtree(old, ignore_errors=True)
    except BaseException:
        shutil.rmtree(staging, ignore_errors=True)
        raise
    return TaskPack(
        name=pack.name,
        version=pack.version,
        description=pack.description,
        content_hash=pack.content_hash,
        tasks=pack.tasks,
        source=str(pack_dir),
        format=pack.format,
    )


def _sha256(path: Path) -> str | None:
    if not path.is_file():
        return None
    digest = hashlib.sha256()
    with open(path, "rb") as handle:
        for block in iter(lambda: handle.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()
