"""The run's log file: what the libraries say goes there, not to the terminal.

transformers, TRL, accelerate, datasets and PEFT warn about their own deprecations and internals
(FutureWarnings, "mtime may not be reliable", tokenizer mismatches of a toy tokenizer) and draw
progress bars for every dataset map and weight load. None of it is for the person training, who
should see codegym's lines and one progress display; all of it stays in `RUN/train.log` (one file
per process: `train.rank<N>.log` for the others), with codegym's own lines between them.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from codegym.train.preflight import LOG_NAME

LIBRARY_LOGGERS = ("transformers", "trl", "accelerate", "datasets", "peft", "torch", "py.warnings")


class _CountingHandler(logging.FileHandler):
    def __init__(self, path: Path) -> None:
        super().__init__(path, encoding="utf-8")
        self.warnings = 0

    def emit(self, record: logging.LogRecord) -> None:
        if record.levelno >= logging.WARNING:
            self.warnings += 1
        super().emit(record)


class RunLog:
    """The open log file: `note` adds codegym's own lines, `warnings` counts the libraries' ones."""

    def __init__(self, path: Path, handler: _CountingHandler) -> None:
        self.path = path
        self._handler = handler
        self._logger = logging.getLogger("codegym.train")

    @property
    def warnings(self) -> int:
        return self._handler.warnings

    def note(self, message: str) -> None:
        self._handler.emit(self._logger.makeRecord("codegym", logging.INFO, "", 0, message, None, None))


def log_path(run_dir: Path, process_index: int = 0) -> Path:
    return run_dir / (LOG_NAME if process_index == 0 else f"train.rank{process_index}.log")


@contextlib.contextmanager
def library_output_to_log(run_dir: Path, process_index: int = 0) -> Iterator[RunLog]:
    """While training, the libraries' warnings and log records go to the run's log file and their
    progress bars are off (the hub's download bars stay: a download can take minutes). Everything
    is put back on exit, so a program that trains twice, or a test, sees the usual behaviour."""
    path = log_path(run_dir, process_index)
    handler = _CountingHandler(path)
    handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    saved: list[tuple[logging.Logger, list[logging.Handler], bool]] = []
    for name in LIBRARY_LOGGERS:
        logger = logging.getLogger(name)
        saved.append((logger, list(logger.handlers), logger.propagate))
        logger.handlers = [handler]
        logger.propagate = False
    was_capturing = logging._warnings_showwarning is not None  # type: ignore[attr-defined]
    logging.captureWarnings(True)  # warnings.warn(...) -> the "py.warnings" logger -> the file
    restore_bars = _progress_bars_off()
    try:
        yield RunLog(path, handler)
    finally:
        restore_bars()
        if not was_capturing:
            logging.captureWarnings(False)
        for logger, handlers, propagate in saved:
            logger.handlers = handlers
            logger.propagate = propagate
        handler.close()


def _progress_bars_off() -> Any:
    """Turn off transformers' and datasets' progress bars; returns what turns them back on."""
    undo = []
    with contextlib.suppress(ImportError):
        import huggingface_hub.utils as hub
        from transformers.utils import logging as hf_logging

        hub_bars = not hub.are_progress_bars_disabled()
        if hf_logging.is_progress_bar_enabled():
            hf_logging.disable_progress_bar()  # this turns the hub's off too
            undo.append(hf_logging.enable_progress_bar)
        if hub_bars:
            hub.enable_progress_bars()
    with contextlib.suppress(ImportError):
        import datasets

        if datasets.is_progress_bar_enabled():
            datasets.disable_progress_bars()
            undo.append(datasets.enable_progress_bars)

    def restore() -> None:
        for step in reversed(undo):
            step()

    return restore
