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

from codegym.errors import BadValue, Setting

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


def seal_checkpoint(directory: Path, step: int, world_size: int = 1) -> None:
    files = {
        str(p.relative_to(directory)): p.stat().st_size
        for p in sorted(directory.rglob("*"))
        if p.is_file() and p.name != MANIFEST and not p.name.startswith(".")
    }
    manifest = {"step": step, "world_size": world_size, "files": files}
    write_atomically(directory / MANIFEST, json.dumps(manifest, indent=1))


def _rng_files_complete(files: dict[str, int], world_size: int) -> bool:
    """Every process's RNG state (transformers names them rng_state_<rank>.pth when there are several)."""
    if world_size <= 1:
        return True
    return all(f"rng_state_{rank}.pth" in files for rank in range(world_size))


def is_valid_checkpoint(directory: Path) -> bool:
    try:
        manifest = json.loads((directory / MANIFEST).read_text(encoding="utf-8"))
        files = manifest["files"]
    except (OSError, ValueError, KeyError):
        return False
    world_size = int(manifest.get("world_size", 1))
    if "trainer_state.json" not in files or not _rng_files_complete(files, world_size):
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
        raise BadValue(
            Setting("resume", resume), f": not a complete checkpoint (missing or mismatched {MANIFEST})"
        )
    return path


def finished_step(checkpoint: Path, max_steps: int) -> int | None:
    """The checkpoint's step when it already reached `max_steps` (the run is complete), else None."""
    if max_steps <= 0:
        return None
    try:
        step = int(json.loads((checkpoint / "trainer_state.json").read_text(encoding="utf-8"))["global_step"])
    except (OSError, ValueError, KeyError):
        return None
    return step if step >= max_steps else None


class SealCheckpoints(TrainerCallback):
    """Writes the manifest once every process has finished writing the checkpoint."""

    def on_save(self, args: Any, state: Any, control: Any, **kwargs: Any) -> Any:
        from accelerate import PartialState

        # transformers calls on_save on every process after its own share of the save (each writes
        # its RNG state): rank 0 lists the files only once all of them are there
        PartialState().wait_for_everyone()
        if state.is_world_process_zero:
            directory = Path(args.output_dir) / f"checkpoint-{state.global_step}"
            if directory.is_dir():
                seal_checkpoint(directory, state.global_step, args.world_size)
        return control
