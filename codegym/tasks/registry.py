"""Finding task packs: directories under tasks/ (or --tasks-dir), JSONL files, and the
`codegym.tasks` entry-point group of installed distributions.

An entry point names a callable returning a TaskPack, or a path (str/Path) to a pack directory or
JSONL file. Earlier sources win when two define the same pack name: explicit directories, then
./tasks, then the bundled packs, then entry points.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from importlib import metadata
from pathlib import Path

from codegym.tasks.dirpack import PACK_FILE, load_directory_pack, parse_limits, read_pack_header
from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.formats import FORMAT_NAMES, load_format_pack
from codegym.tasks.jsonlpack import load_jsonl_pack
from codegym.tasks.model import Limits, TaskPack

ENTRY_POINT_GROUP = "codegym.tasks"
JSONL_SUFFIXES = (".jsonl", ".jsonl.gz")


def bundled_tasks_dir() -> Path | None:
    """The packs shipped with codegym: inside the wheel, or the checkout's top-level tasks/."""
    package_dir = Path(__file__).resolve().parents[1]
    for candidate in (package_dir / "_bundled_tasks", package_dir.parent / "tasks"):
        if candidate.is_dir():
            return candidate
    return None


@dataclass(frozen=True)
class PackSource:
    name: str
    origin: str
    load: Callable[[], TaskPack]


def _jsonl_name(path: Path) -> str | None:
    for suffix in JSONL_SUFFIXES:
        if path.name.endswith(suffix):
            return path.name[: -len(suffix)]
    return None


def _pack_from_header(pack_dir: Path) -> PackSource:
    header = read_pack_header(pack_dir)
    name = header["name"]
    if header.get("format", "directory") == "directory":
        return PackSource(name, str(pack_dir), lambda: load_directory_pack(pack_dir))
    if header["format"] in FORMAT_NAMES:
        return PackSource(name, str(pack_dir), lambda: _load_format_pack(pack_dir, header))
    if header["format"] not in ("jsonl", "humaneval-jsonl"):
        known = ", ".join(("directory", "humaneval-jsonl", *FORMAT_NAMES))
        raise TaskPackError(
            f"unknown format {header['format']!r}; use one of {known}",
            pack=name,
            file=str(pack_dir / PACK_FILE),
            field="format",
        )
    data = header.get("data")
    if not isinstance(data, str):
        raise TaskPackError(
            "must name the JSONL file (relative to the pack directory)",
            pack=name,
            file=str(pack_dir / PACK_FILE),
            field="data",
        )
    return PackSource(
        name,
        str(pack_dir),
        lambda: load_jsonl_pack(
            pack_dir / data,
            name=name,
            version=header["version"],
            description=str(header.get("description", "")),
        ),
    )


def _load_format_pack(pack_dir: Path, header: dict) -> TaskPack:
    defaults = header.get("defaults") or {}
    where = {"pack": header["name"], "file": str(pack_dir / PACK_FILE)}
    if not isinstance(defaults, dict):
        raise TaskPackError("must be a mapping", field="defaults", **where)
    return load_format_pack(pack_dir, header, parse_limits(defaults.get("limits"), Limits(), **where))


def _scan_directory(root: Path) -> list[PackSource]:
    sources: list[PackSource] = []
    for entry in sorted(root.iterdir()):
        if entry.name.startswith((".", "_")):
            continue
        if entry.is_dir() and (entry / PACK_FILE).is_file():
            sources.append(_pack_from_header(entry))
        elif entry.is_file() and (stem := _jsonl_name(entry)):
            sources.append(PackSource(stem, str(entry), lambda p=entry, n=stem: load_jsonl_pack(p, name=n)))
    return sources


def _entry_point_sources() -> list[PackSource]:
    sources = []
    for entry_point in metadata.entry_points(group=ENTRY_POINT_GROUP):
        sources.append(
            PackSource(
                entry_point.name,
                f"entry point {entry_point.value}",
                lambda ep=entry_point: _load_entry_point(ep),
            )
        )
    return sources


def _load_entry_point(entry_point: metadata.EntryPoint) -> TaskPack:
    target = entry_point.load()
    if isinstance(target, (str, Path)):
        path = Path(target)
        if path.is_dir():
            return load_directory_pack(path)
        return load_jsonl_pack(path, name=entry_point.name)
    pack = target()
    if not isinstance(pack, TaskPack):
        raise TaskPackError(
            f"entry point {entry_point.value} returned {type(pack).__name__}, not a TaskPack",
            pack=entry_point.name,
        )
    return pack


class TaskRegistry:
    """Discovers packs lazily (pack.yaml headers only) and loads each on first use."""

    def __init__(
        self,
        tasks_dirs: Iterable[Path | str] = (),
        *,
        use_defaults: bool = True,
        use_entry_points: bool = True,
    ) -> None:
        roots = [Path(d) for d in tasks_dirs]
        for root in roots:
            if not root.is_dir():
                raise TaskPackError(f"tasks directory {str(root)!r} does not exist")
        if use_defaults:
            roots.append(Path.cwd() / "tasks")
            bundled = bundled_tasks_dir()
            if bundled is not None:
                roots.append(bundled)
        seen_roots: set[Path] = set()
        self._sources: dict[str, PackSource] = {}
        for root in roots:
            resolved = root.resolve()
            if resolved in seen_roots or not root.is_dir():
                continue
            seen_roots.add(resolved)
            for source in _scan_directory(root):
                self._sources.setdefault(source.name, source)
        if use_entry_points:
            for source in _entry_point_sources():
                self._sources.setdefault(source.name, source)
        self._loaded: dict[str, TaskPack] = {}

    def names(self) -> list[str]:
        return sorted(self._sources)

    def origin(self, name: str) -> str:
        return self._source(name).origin

    def _source(self, name: str) -> PackSource:
        source = self._sources.get(name)
        if source is None:
            raise UnknownNameError("task pack", name, self._sources)
        return source

    def load(self, name: str) -> TaskPack:
        if name not in self._loaded:
            self._loaded[name] = self._source(name).load()
        return self._loaded[name]
