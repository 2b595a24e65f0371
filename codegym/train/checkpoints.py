"""Checkpoints that a crash cannot leave half-written: after the trainer has saved `checkpoint-N`
(weights, optimizer, scheduler, RNG, trainer state with the data position), a manifest listing
every file and its size is written atomically. Only checkpoints whose manifest matches the files
on disk count as valid, so a kill -9 mid-save leaves the previous checkpoint as the newest."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path
from typing import Any

from transformers import TrainerCallback

MANIFEST = "codegym_manifest.json"
_CHECKPOINT = re.compile(r"^checkpoint-(\d+)$")


def write_atomically(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.tmp-{os.getpid()}")
    with open(tmp, "w", encoding="utf-8") as handle:
        handle.write(text)
        handle.flush()
        os.fsync(handle.fileno())
    os.replace(tmp, path)
    directory = os.open(path.parent, os.O_RDONLY)
    try:
        os.fsync(directory)
    finally:
        os.close(directory)


def seal_checkpoint(directory: Path, step: int) -> None:
    files = {
        str(p.relative_to(directory)): p.stat().st_size
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name != MANIFEST and not p.name.startswith(".")
    }
    write_atomically(directory / MANIFEST, json.dumps({"step": step, "files": files}, indent=1))


def is_valid_checkpoint(directory: Path) -> bool:
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError):
        return False
    if "trainer_state.json" not in files:
        return False
    return all(
        (directory / name).is_file() and (directory / name).stat().st_size == size
        for name, size in files.items()
    )


def checkpoints(run_dir: Path) -> list[tuple[int, Path]]:
    if not run_dir.is_dir():
        return []
    found = [
        (int(m.group(1)), p) for p in run_dir.iterdir() if (m := _CHECKPOINT.match(p.name)) and p.is_dir()
    ]
    return sorted(found, reverse=True)


def newest_valid_checkpoint(run_dir: Path) -> Path | None:
    for _, path in checkpoints(run_dir):
        if is_valid_checkpoint(path):
            return path
    return None


def resolve_resume(resume: str | None, run_dir: Path) -> Path | None:
    """`auto` → the newest valid checkpoint (None if there is none); a path → that checkpoint, checked."""
    if not resume:
        return None
    if resume == "auto":
        return newest_valid_checkpoint(run_dir)
    path = Path(resume)
    if not is_valid_checkpoint(path):
        raise ValueError(f"--resume {resume}: not a complete checkpoint (missing or mismatched {MANIFEST})")
    return path


class SealCheckpoints(TrainerCallback):
    """Writes the manifest once the trainer has finished writing a checkpoint."""

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        if state.is_world_process_zero:
            directory = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if directory.is_dir():
                seal_checkpoint(directory, state.global_step)
        return control
