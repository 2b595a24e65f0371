"""Checks a training run makes before any model, sandbox or warm-up: the run directory (writable,
not another run's, not another process's) and the model to start from (a local folder that exists,
or a hub model that can be had without minutes of network retries). Each failure is one ConfigError
line saying what to do."""

from __future__ import annotations

import contextlib
import json
import os
import re
import shutil
import socket
from pathlib import Path
from urllib.parse import urlparse

from codegym import locks
from codegym.errors import Setting
from codegym.train.config import ConfigError, ModelConfig

LOCK_NAME = ".codegym-train.lock"
LOG_NAME = "train.log"

# what `codegym train` (with TRL and transformers) writes into a run directory; --overwrite deletes
# these and nothing else
RUN_ENTRIES = frozenset(
    {
        "config.json",  # codegym's record of the run's config
        "summary.json",
        "samples.jsonl",
        "adaptive_lr.jsonl",
        "alarms.jsonl",
        "learning.json",
        "reward_components.png",
        "README.md",  # TRL's model card
        LOG_NAME,
        LOCK_NAME,
        "base-model",  # the `tiny` model built for this run
        "sft-model",
        "sft-work",
        "final-model",
        "final-adapter",
        "runs",  # TensorBoard event files
    }
)
RUN_PATTERNS = (
    re.compile(r"checkpoint-\d+"),
    re.compile(r"train\.rank\d+\.log"),  # the log of each further process of a multi-process run
    re.compile(r"\..+\.tmp-\d+"),  # an atomic write a kill interrupted
)


def _is_run_entry(path: Path) -> bool:
    name = path.name
    if name not in RUN_ENTRIES and not any(p.fullmatch(name) for p in RUN_PATTERNS):
        return False
    # the generic names are checked by content: a user's own README.md or config.json is never ours
    if name == "README.md":
        return path.is_file() and b"generated_from_trainer" in path.read_bytes()[:4096]
    if name in ("config.json", "summary.json"):
        try:
            data = json.loads(path.read_text(encoding="utf-8"))
        except (OSError, ValueError):
            return False
        return isinstance(data, dict) and ("algorithm" in data or "run_dir" in data)
    return True


def _shown(paths: list[Path], limit: int = 4) -> str:
    names = sorted(p.name + ("/" if p.is_dir() else "") for p in paths)
    return ", ".join(names[:limit]) + (f" and {len(names) - limit} more" if len(names) > limit else "")


def check_writable_dir(run_dir: Path, field: str = "output directory") -> None:
    """The run directory can be created and written: not a file, not under a file, not read-only."""
    if run_dir.exists() and not run_dir.is_dir():
        raise ConfigError(f"{field} {run_dir} is a file; name a folder for the run")
    existing = run_dir
    while not existing.exists():
        if existing.parent == existing:
            break
        existing = existing.parent
    if not existing.is_dir():
        raise ConfigError(f"{field} {run_dir}: {existing} is a file, not a folder")
    if not os.access(existing, os.W_OK | os.X_OK):
        raise ConfigError(f"{field} {run_dir}: cannot write in {existing} (read-only); choose another folder")


def check_run_dir(run_dir: Path, *, resume: str | None, overwrite: bool, protected: list[Path] = ()) -> None:
    """A new run starts only in an empty (or absent) directory, so two runs never mix; `overwrite`
    clears what an earlier run wrote, and refuses when the folder holds anything else. Read-only:
    every process of a multi-process run can call it before any of them writes."""
    check_writable_dir(run_dir)
    if resume and overwrite:
        raise ConfigError(
            Setting("overwrite", True),
            " starts the run over and ",
            Setting("resume"),
            " continues it: pass one of them",
        )
    if resume == "auto" and run_dir.is_dir():
        from codegym.train.checkpoints import newest_valid_checkpoint

        earlier = [p for p in run_dir.iterdir() if p.name != LOCK_NAME]
        if earlier and newest_valid_checkpoint(run_dir) is None:  # would mix a new run into the old
            raise ConfigError(
                Setting("resume", "auto"),
                f": {run_dir} holds an earlier run's files ({_shown(earlier)}) but no complete "
                "checkpoint to continue from; start over with ",
                Setting("overwrite", True),
            )
    if resume or not run_dir.is_dir():
        return
    entries = [p for p in run_dir.iterdir() if p.name != LOCK_NAME]
    if not entries:
        return
    foreign = [p for p in entries if not _is_run_entry(p)]
    if overwrite:
        if foreign:
            raise ConfigError(
                Setting("overwrite", True),
                f": {run_dir} holds files codegym did not write ({_shown(foreign)}); they are "
                "left as they are: move them or choose another ",
                Setting("output.dir"),
            )
        for path in protected:
            resolved = path.resolve()
            if resolved == run_dir.resolve() or run_dir.resolve() in resolved.parents:
                raise ConfigError(
                    Setting("overwrite", True),
                    f" would delete {path}, which this run reads (it is inside {run_dir}); "
                    "copy it elsewhere or choose another ",
                    Setting("output.dir"),
                )
        return
    if foreign:
        raise ConfigError(
            f"{run_dir} is not empty and holds files codegym did not write ({_shown(foreign)}); "
            "choose another ",
            Setting("output.dir"),
        )
    raise ConfigError(
        f"{run_dir} already holds a training run ({_shown(entries)}): continue it with ",
        Setting("resume", "auto"),
        ", or start over with ",
        Setting("overwrite", True),
        " (deletes that run's files)",
    )


def clear_run_dir(run_dir: Path) -> list[str]:
    """Delete what an earlier run wrote (after `check_run_dir(..., overwrite=True)` passed)."""
    removed = []
    for path in sorted(run_dir.iterdir()) if run_dir.is_dir() else []:
        if path.name == LOCK_NAME or not _is_run_entry(path):
            continue
        if path.is_dir() and not path.is_symlink():
            shutil.rmtree(path)
        else:
            path.unlink()
        removed.append(path.name)
    return removed


def run_lock(run_dir: Path) -> contextlib.AbstractContextManager[None]:
    """One training process group per run directory: a second `codegym train` into it stops with the
    first one's pid."""
    run_dir.mkdir(parents=True, exist_ok=True)
    return locks.exclusive(
        run_dir / LOCK_NAME,
        lambda holder: ConfigError(
            f"{run_dir} is in use by another codegym train (pid {holder}); wait for it to finish or "
            "choose another ",
            Setting("output.dir"),
        ),
    )


# -- the model to start from ----------------------------------------------------------------------

_HUB_ID = re.compile(r"[A-Za-z0-9][\w.-]*(/[\w.-]+)?")


def _looks_like_path(name: str) -> bool:
    return name.startswith(("/", ".", "~")) or name.endswith("/") or not _HUB_ID.fullmatch(name)


def _hub_reachable(endpoint: str, timeout: float = 3.0) -> str | None:
    """None when a TCP connection to the hub opens within `timeout`, else why not."""
    url = urlparse(endpoint)
    host = url.hostname or endpoint
    port = url.port or (443 if url.scheme == "https" else 80)
    try:
        with socket.create_connection((host, port), timeout=timeout):
            return None
    except OSError as exc:
        return exc.strerror or type(exc).__name__


def check_model_source(model: ModelConfig, where: str = "config") -> str | None:
    """`model.name_or_path` can be loaded: an existing transformers folder, or a hub id that is in the
    local cache or can be downloaded now. Offline (HF_HUB_OFFLINE) or with the hub unreachable, a model
    missing from the cache fails here in seconds rather than after a minute of retries; a cached one
    is then loaded from the cache alone (this process goes offline), and the returned notice says so."""
    name = model.name_or_path
    if name == "tiny":
        return None
    path = Path(name).expanduser()
    field = f"{where}: model.name_or_path {name}"
    if path.exists():
        if not path.is_dir():
            raise ConfigError(f"{field} is a file; name a model folder (with config.json) or a hub id")
        if not (path / "config.json").exists():
            raise ConfigError(f"{field}: no config.json in that folder, so it is not a transformers model")
        return None
    if _looks_like_path(name):
        raise ConfigError(f"{field}: no such folder (a local model path must exist; or give a hub id)")
    from huggingface_hub import constants, try_to_load_from_cache

    cached = isinstance(try_to_load_from_cache(name, "config.json"), str)
    if cached and constants.HF_HUB_OFFLINE:
        return None
    if cached:
        problem = _hub_reachable(constants.ENDPOINT)
        if problem is None:
            return None
        # transformers would retry the hub for every file before falling back to the cache
        constants.HF_HUB_OFFLINE = True
        os.environ["HF_HUB_OFFLINE"] = "1"  # and so would the processes this one starts
        return f"{constants.ENDPOINT} cannot be reached ({problem}): {name} loads from the local hub cache"
    if constants.HF_HUB_OFFLINE:
        raise ConfigError(
            f"{field} is not in the local hub cache ({constants.HF_HUB_CACHE}) and HF_HUB_OFFLINE is set: "
            f"download it first (hf download {name}) or name a local folder"
        )
    problem = _hub_reachable(constants.ENDPOINT)
    if problem is not None:
        raise ConfigError(
            f"{field} is not in the local hub cache and {constants.ENDPOINT} cannot be reached ({problem}): "
            f"download it where there is a network (hf download {name}) or name a local folder"
        )
    _check_hub_model(name, field)
    return None


def _check_hub_model(name: str, field: str) -> None:
    """A hub id that does not exist (or needs a login) fails now, not after the sandbox and the
    reference solutions are ready; any other answer (rate limits, a slow hub) is left to transformers."""
    from huggingface_hub import HfApi
    from huggingface_hub.errors import GatedRepoError, RepositoryNotFoundError

    try:
        HfApi().model_info(name, timeout=10)
    except GatedRepoError:
        raise ConfigError(
            f"{field} is gated on the hub: accept its terms there and log in (hf auth login)"
        ) from None
    except RepositoryNotFoundError:
        raise ConfigError(f"{field}: no such model on the hub (nor a local folder); check the name") from None
    except Exception:  # a check, never a new way to fail
        return
