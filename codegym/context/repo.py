"""Find a repository's Python files and name their modules.

Scanning is defensive: symlink loops are cut by remembering each visited directory's (device, inode),
vendored/virtualenv/VCS directories are skipped, and files over a size limit are left out (the file
holding the hole is always read).
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

SKIP_DIRS = frozenset(
    {
        ".git",
        ".hg",
        ".svn",
        ".tox",
        ".nox",
        ".venv",
        "venv",
        "env",
        "node_modules",
        "__pycache__",
        "site-packages",
        ".mypy_cache",
        ".pytest_cache",
        ".ruff_cache",
        "build",
        "dist",
    }
)
DEFAULT_MAX_FILE_BYTES = 2_000_000  # generated tables beyond this cost more to parse than they give back


@dataclass
class RepoFiles:
    """The Python sources of a repository: relative POSIX path -> bytes, plus what was left out."""

    files: dict[str, bytes]
    root_name: str = ""  # the root directory's name when the root itself is a package
    skipped: dict[str, str] = field(default_factory=dict)  # path -> reason


def scan_repo(
    root: Path, *, max_file_bytes: int = DEFAULT_MAX_FILE_BYTES, include: Iterable[str] = ()
) -> RepoFiles:
    """Read every `*.py` under `root`, following symlinks once; `include` paths are read at any size."""
    root = Path(root)
    forced = {PurePosixPath(p).as_posix() for p in include}
    files: dict[str, bytes] = {}
    skipped: dict[str, str] = {}
    seen_dirs: set[tuple[int, int]] = set()
    for dirpath, dirnames, filenames in os.walk(root, followlinks=True):
        try:
            st = os.stat(dirpath)
        except OSError:
            dirnames[:] = []
            continue
        key = (st.st_dev, st.st_ino)
        if key in seen_dirs:  # a symlink loop or a second link to a directory we already read
            dirnames[:] = []
            continue
        seen_dirs.add(key)
        dirnames[:] = sorted(d for d in dirnames if d not in SKIP_DIRS and not d.endswith(".egg-info"))
        rel_dir = Path(dirpath).relative_to(root)
        for name in sorted(filenames):
            if not name.endswith(".py"):
                continue
            rel = (rel_dir / name).as_posix()
            full = Path(dirpath) / name
            try:
                size = full.stat().st_size
                if size > max_file_bytes and rel not in forced:
                    skipped[rel] = f"larger than {max_file_bytes} bytes"
                    continue
                files[rel] = full.read_bytes()
            except OSError as exc:  # dangling symlink, permission, ...
                skipped[rel] = f"unreadable: {exc.__class__.__name__}"
    for rel in forced - files.keys():
        try:
            files[rel] = (root / rel).read_bytes()
        except OSError as exc:
            skipped[rel] = f"unreadable: {exc.__class__.__name__}"
    root_name = root.resolve().name if "__init__.py" in files else ""
    return RepoFiles(files, root_name if root_name.isidentifier() else "", skipped)


def module_names(paths: Iterable[str], root_name: str = "") -> dict[str, str]:
    """Module name of each path, following `__init__.py` package chains (src/ layouts included).

    A file outside any package is named by its path from the root (`scripts/tool.py` -> `scripts.tool`);
    when the root is itself a package (`root_name`), its modules carry that prefix.
    """
    path_list = list(paths)
    inits = {str(PurePosixPath(p).parent) for p in path_list if PurePosixPath(p).name == "__init__.py"}
    names: dict[str, str] = {}
    for path in path_list:
        pure = PurePosixPath(path)
        parts = [] if pure.name == "__init__.py" else [pure.stem]
        parent = pure.parent
        # climb while the directory is a package
        while str(parent) in inits and str(parent) != ".":
            parts.insert(0, parent.name)
            parent = parent.parent
        if str(parent) == "." and "." in inits and root_name:
            parts.insert(0, root_name)
        elif str(parent) != "." and str(pure.parent) not in inits:
            # not inside a package: name it by its directory path
            parts = [*parent.parts, *parts]
        names[path] = ".".join(parts) if parts else root_name
    return names


def module_aliases(names: Mapping[str, str]) -> dict[str, str]:
    """Lookup table module name -> path, with `src.`-style layout prefixes also stripped."""
    table: dict[str, str] = {}
    for path, name in sorted(names.items(), key=lambda item: item[0].count("/")):
        if name:
            table.setdefault(name, path)
    for path, name in names.items():
        for prefix in ("src.", "lib.", "python."):
            if name.startswith(prefix):
                table.setdefault(name[len(prefix) :], path)
    return table
