"""One writer at a time: an advisory lock file naming its holder's pid.

Used by every command that writes a file or folder a second run could tear (`judge --out`, `eval
--out`, `train`'s run directory). A run directory's lock file stays when released (removing it would
let a process that opened the old file and one that created a new file both hold "the" lock, for
as long as both run); an output file's lock is removed (`remove=True`) so that a refused or finished
command leaves nothing behind, at the price of that narrow window.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Callable, Iterator
from pathlib import Path

from codegym.errors import CodegymError


@contextlib.contextmanager
def exclusive(
    lock_path: Path, busy: Callable[[str], CodegymError], *, remove: bool = False
) -> Iterator[None]:
    """Hold `lock_path` exclusively; if another process holds it, raise `busy(its pid)`."""
    lock_path.parent.mkdir(parents=True, exist_ok=True)
    with open(lock_path, "a+", encoding="utf-8") as handle:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            handle.seek(0)
            raise busy(handle.read().strip() or "unknown") from None
        handle.seek(0)
        handle.truncate()
        handle.write(str(os.getpid()))
        handle.flush()
        try:
            yield
        finally:
            if remove:
                with contextlib.suppress(OSError):
                    lock_path.unlink()
            fcntl.flock(handle, fcntl.LOCK_UN)
