"""Output paths: checked before any work starts, and one writer at a time.

codegym never overwrites what it did not write: an output file must be empty or start like the
command's own output, an output folder must be empty or hold only the command's own files. A lock
file next to (or inside) the output keeps a second process of the same command away, and names the
pid of the one writing.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Callable, Collection, Mapping
from pathlib import Path

from codegym import locks
from codegym.errors import Setting
from codegym.eval.samples import EvalError


class OutputPathError(EvalError):
    """An output path that codegym may not write (a foreign file, a file where a folder is needed,
    read-only, or in use by another process); nothing was written."""


def _existing_ancestor(path: Path) -> Path:
    """The nearest existing path at or above `path` (a missing output is created under it)."""
    current = path.absolute()
    while not current.exists() and current != current.parent:
        current = current.parent
    return current


def _check_creatable(path: Path, option: Setting) -> None:
    """`path` does not exist: it can be created only under folders, the nearest one writable."""
    ancestor = _existing_ancestor(path.parent)
    if not ancestor.is_dir():
        raise OutputPathError(option, f" {path}: {ancestor} is a file, not a folder")
    if not os.access(ancestor, os.W_OK | os.X_OK):
        raise OutputPathError(option, f" {path}: cannot create it, {ancestor} is not writable")


def check_output_file(
    path: Path,
    *,
    command: str,
    is_ours: Callable[[bytes], bool],
    inputs: Mapping[str, Path] | None = None,
    setting: str = "out_path",
) -> None:
    """Refuse an output file that is one of `inputs` (name -> path), a folder, under a file,
    unwritable, or a non-empty file whose first line `is_ours` does not recognise. Messages name
    the path as the caller's `setting`."""
    option = Setting(setting)
    for name, source in (inputs or {}).items():
        if path.exists() and source.exists() and path.resolve() == source.resolve():
            raise OutputPathError(option, f" {path} is the {name} itself; choose another ", option)
    if path.is_dir():
        raise OutputPathError(option, f" {path} is a folder; give a file path")
    if not path.exists():
        _check_creatable(path, option)
        return
    if not os.access(path, os.W_OK):
        raise OutputPathError(option, f" {path} is not writable")
    with path.open("rb") as handle:
        head = handle.readline(1 << 16)
    if head and not is_ours(head):
        raise OutputPathError(
            option,
            f" {path} exists and is not a `{command}` output; choose another ",
            option,
            " (it is left as it is)",
        )


def check_output_dir(
    path: Path,
    *,
    command: str,
    own_names: Collection[str],
    marker: str,
    setting: str = "out_dir",
) -> None:
    """Refuse an output folder that is a file, under a file, unwritable, or that holds files the
    command did not write (a folder with `marker` is the command's own: its owner checks the rest)."""
    option = Setting(setting)
    if path.exists() and not path.is_dir():
        raise OutputPathError(option, f" {path} is a file; give a folder (`{command}` writes several files)")
    if not path.exists():
        _check_creatable(path, option)
        return
    if not os.access(path, os.W_OK | os.X_OK):
        raise OutputPathError(option, f" {path} is not writable")
    if (path / marker).exists():
        return
    foreign = sorted(entry.name for entry in path.iterdir() if entry.name not in own_names)
    if foreign:
        shown = ", ".join(foreign[:5]) + (f" and {len(foreign) - 5} more" if len(foreign) > 5 else "")
        raise OutputPathError(
            option,
            f" {path} holds files `{command}` did not write ({shown}); choose another ",
            option,
            " or an empty folder (nothing there is touched)",
        )


def output_lock(
    lock_path: Path, *, target: Path, command: str, setting: str
) -> contextlib.AbstractContextManager[None]:
    """Hold `lock_path` while writing `target`; a second writer stops with a one-line error naming the
    first one's pid."""
    return locks.exclusive(
        lock_path,
        lambda holder: OutputPathError(
            Setting(setting),
            f" {target} is being written by another {command} (pid {holder}); wait for it or choose another ",
            Setting(setting),
        ),
        remove=True,
    )
