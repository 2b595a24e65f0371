"""Directory task packs: `pack.yaml` plus one folder per task.

tasks/<pack>/pack.yaml          name, version, description, defaults (solution_path, limits, test_runner)
tasks/<pack>/<task>/task.yaml   entry_point, tags, difficulty, solution_path, limits, test_runner
tasks/<pack>/<task>/prompt.md   what the model is asked to do               (required)
tasks/<pack>/<task>/starter.py  beginning of the solution file; completions are appended to it
tasks/<pack>/<task>/reference.py  a complete reference solution file        (required)
tasks/<pack>/<task>/test_visible.py  tests that may be shown to the model
tasks/<pack>/<task>/test_hidden.py   tests that decide the verdict and reward (required)
tasks/<pack>/<task>/repo/       the task's repository; solution_path is relative to it
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import yaml

from codegym._yaml import load_yaml, yaml_problem
from codegym.tasks.errors import TaskPackError
from codegym.tasks.model import Limits, Task, TaskPack, TestSuite

PACK_FILE = "pack.yaml"
TASK_FILE = "task.yaml"
PACK_KEYS = {"name", "version", "description", "defaults", "format", "data", "checker", "options", "imported"}
DEFAULT_KEYS = {"solution_path", "limits", "test_runner"}
TASK_KEYS = {"entry_point", "tags", "difficulty", "solution_path", "limits", "test_runner", "description"}
LIMIT_KEYS = {
    "timeout_s",
    "memory_mb",
    "max_processes",
    "max_output_bytes",
    "max_file_bytes",
    "max_open_files",
}
SKIPPED_NAMES = {"__pycache__", ".git", ".pytest_cache", ".ruff_cache", ".DS_Store"}


def read_yaml(path: Path, *, pack: str | None, task: str | None = None) -> dict[str, Any]:
    try:
        data = load_yaml(path.read_text(encoding="utf-8"))
    except yaml.YAMLError as exc:
        raise TaskPackError(
            f"invalid YAML: {yaml_problem(exc)}", pack=pack, task=task, file=str(path)
        ) from exc
    except UnicodeDecodeError as exc:
        raise TaskPackError(f"not UTF-8 text: {exc}", pack=pack, task=task, file=str(path)) from exc
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise TaskPackError("must be a mapping of keys to values", pack=pack, task=task, file=str(path))
    return data


def read_text(path: Path, *, pack: str, task: str | None = None) -> str:
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError as exc:
        raise TaskPackError(f"not UTF-8 text: {exc}", pack=pack, task=task, file=str(path)) from exc


def _check_keys(data: Mapping[str, Any], allowed: set[str], **where: Any) -> None:
    unknown = sorted(set(data) - allowed)
    if unknown:
        raise TaskPackError(
            f"unknown key(s) {', '.join(unknown)}; allowed: {', '.join(sorted(allowed))}",
            field=unknown[0],
            **where,
        )


def parse_limits(raw: Any, base: Limits, **where: Any) -> Limits:
    if raw is None:
        return base
    if not isinstance(raw, dict):
        raise TaskPackError("must be a mapping", field="limits", **where)
    _check_keys(raw, LIMIT_KEYS, **where)
    try:
        return base.merged(raw)
    except (TypeError, ValueError) as exc:
        raise TaskPackError(str(exc), field="limits", **where) from exc


def parse_test_runner(raw: Any, default: str, **where: Any) -> str:
    value = default if raw is None else raw
    if value not in ("auto", "fast", "pytest"):
        raise TaskPackError(f"must be auto, fast or pytest, got {value!r}", field="test_runner", **where)
    return value


def check_relative_path(value: Any, field_name: str, **where: Any) -> str:
    if not isinstance(value, str) or not value.endswith(".py"):
        raise TaskPackError(
            f"must be a relative path to a .py file, got {value!r}", field=field_name, **where
        )
    parts = Path(value).parts
    if Path(value).is_absolute() or ".." in parts:
        raise TaskPackError(f"must stay inside the task's repo, got {value!r}", field=field_name, **where)
    return value


def hash_tree(root: Path) -> str:
    """sha256 over every file's relative path and bytes: the pack's identity for caches and results."""
    digest = hashlib.sha256()
    for path in sorted(p for p in root.rglob("*") if p.is_file() and not (set(p.parts) & SKIPPED_NAMES)):
        digest.update(path.relative_to(root).as_posix().encode())
        digest.update(b"\0")
        digest.update(path.read_bytes())
        digest.update(b"\0")
    return digest.hexdigest()


def _read_repo(repo_dir: Path, *, pack: str, task: str) -> dict[str, str]:
    files: dict[str, str] = {}
    for path in sorted(repo_dir.rglob("*")):
        if (
            not path.is_file()
            or set(path.relative_to(repo_dir).parts) & SKIPPED_NAMES
            or path.suffix == ".pyc"
        ):
            continue
        files[path.relative_to(repo_dir).as_posix()] = read_text(path, pack=pack, task=task)
    return files


def load_task(task_dir: Path, *, pack: str, defaults: Mapping[str, Any], base_limits: Limits) -> Task:
    name = task_dir.name
    where = {"pack": pack, "task": name}
    spec_path = task_dir / TASK_FILE
    spec = read_yaml(spec_path, **where) if spec_path.exists() else {}
    _check_keys(spec, TASK_KEYS, file=str(spec_path), **where)
    spec_where = {"file": str(spec_path), **where}

    def required(filename: str) -> str:
        path = task_dir / filename
        if not path.is_file():
            raise TaskPackError("required file is missing", file=str(path), **where)
        text = read_text(path, **where)
        if not text.strip():
            raise TaskPackError("file is empty", file=str(path), **where)
        return text

    def optional(filename: str) -> str:
        path = task_dir / filename
        return read_text(path, **where) if path.is_file() else ""

    solution_path = check_relative_path(
        spec.get("solution_path", defaults.get("solution_path", "solution.py")), "solution_path", **spec_where
    )
    entry_point = spec.get("entry_point")
    if entry_point is not None and (not isinstance(entry_point, str) or not entry_point.isidentifier()):
        raise TaskPackError(
            f"must be a Python identifier, got {entry_point!r}", field="entry_point", **spec_where
        )
    tags = spec.get("tags", [])
    if not isinstance(tags, list) or not all(isinstance(t, str) for t in tags):
        raise TaskPackError("must be a list of strings", field="tags", **spec_where)
    repo_dir = task_dir / "repo"
    repo_files = _read_repo(repo_dir, **where) if repo_dir.is_dir() else {}
    if solution_path in repo_files:
        raise TaskPackError(
            f"repo/{solution_path} must not exist: it is the file the model writes "
            "(put its beginning in starter.py)",
            field="solution_path",
            **spec_where,
        )
    visible = optional("test_visible.py")
    return Task(
        pack=pack,
        name=name,
        prompt=required("prompt.md"),
        solution_path=solution_path,
        reference_solution=required("reference.py"),
        hidden_tests=TestSuite({"test_hidden.py": required("test_hidden.py")}),
        visible_tests=TestSuite({"test_visible.py": visible} if visible.strip() else {}),
        prefix=optional("starter.py"),
        entry_point=entry_point,
        repo_files=repo_files,
        limits=parse_limits(spec.get("limits"), base_limits, **spec_where),
        test_runner=parse_test_runner(
            spec.get("test_runner"), defaults.get("test_runner", "auto"), **spec_where
        ),
        source=str(task_dir),
        metadata={
            "tags": tags,
            "difficulty": spec.get("difficulty"),
            "description": spec.get("description", ""),
        },
    )


def read_pack_header(pack_dir: Path) -> dict[str, Any]:
    """pack.yaml's contents, validated (cheap: used for discovery without loading tasks)."""
    path = pack_dir / PACK_FILE
    header = read_yaml(path, pack=pack_dir.name)
    name = header.get("name", pack_dir.name)
    where = {"pack": str(name), "file": str(path)}
    _check_keys(header, PACK_KEYS, **where)
    if not isinstance(name, str) or not name or "/" in name:
        raise TaskPackError(f"must be a non-empty name without '/', got {name!r}", field="name", **where)
    version = header.get("version")
    if version is None:
        raise TaskPackError(
            'is required (e.g. "1.0.0"), so results can name the data they came from',
            field="version",
            **where,
        )
    header["name"] = name
    header["version"] = str(version)
    return header


def load_directory_pack(pack_dir: Path) -> TaskPack:
    header = read_pack_header(pack_dir)
    name = header["name"]
    pack_file = str(pack_dir / PACK_FILE)
    defaults = header.get("defaults") or {}
    if not isinstance(defaults, dict):
        raise TaskPackError("must be a mapping", pack=name, file=pack_file, field="defaults")
    _check_keys(defaults, DEFAULT_KEYS, pack=name, file=pack_file)
    base_limits = parse_limits(defaults.get("limits"), Limits(), pack=name, file=pack_file)
    tasks: dict[str, Task] = {}
    for task_dir in sorted(p for p in pack_dir.iterdir() if p.is_dir() and p.name not in SKIPPED_NAMES):
        if task_dir.name.startswith("."):
            continue
        tasks[task_dir.name] = load_task(task_dir, pack=name, defaults=defaults, base_limits=base_limits)
    if not tasks:
        raise TaskPackError("contains no task folders", pack=name, file=str(pack_dir))
    return TaskPack(
        name=name,
        version=header["version"],
        description=str(header.get("description", "")),
        content_hash=hash_tree(pack_dir),
        tasks=tasks,
        source=str(pack_dir),
        format="directory",
    )
