"""Helpers shared by test modules (fixtures live in the conftest files)."""

from __future__ import annotations

import signal
import subprocess
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class Interrupted:
    pid: int
    returncode: int
    output: str
    waited_s: float  # from the signal to the end


def interrupted_command(
    argv: Sequence[str], ready: Callable[[subprocess.Popen], bool], *, settle_s: float = 0.0
) -> Interrupted:
    """Run ARGV until `ready(process)` (within 120 s), then SIGINT it as Ctrl-C would, and wait for
    it to end; it is killed if it outlives 120 s more."""
    process = subprocess.Popen(
        list(argv), stdout=subprocess.PIPE, stderr=subprocess.STDOUT, preexec_fn=_default_sigint
    )
    try:
        deadline = time.monotonic() + 120
        while not ready(process) and time.monotonic() < deadline:
            assert process.poll() is None, process.communicate()[0].decode()[-2000:]
            time.sleep(0.1)
        assert ready(process), "the command never got ready"
        time.sleep(settle_s)
        process.send_signal(signal.SIGINT)
        interrupted = time.monotonic()
        output = process.communicate(timeout=120)[0].decode(errors="replace")
        return Interrupted(process.pid, process.returncode, output, time.monotonic() - interrupted)
    finally:
        if process.poll() is None:
            process.kill()
            process.wait()


def _default_sigint() -> None:
    """SIGINT as a terminal's process has it: a test run in the background (`nohup`, `cmd &` in a
    script) ignores SIGINT, its children inherit that, and Python leaves an ignored SIGINT ignored."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)


def write_pack(
    root: Path, name: str = "mini", *, pack_yaml: str | None = None, tasks: dict | None = None
) -> Path:
    pack_dir = root / name
    pack_dir.mkdir(parents=True)
    (pack_dir / "pack.yaml").write_text(
        pack_yaml
        if pack_yaml is not None
        else f"name: {name}\nversion: '0.1'\ndescription: test pack\ndefaults:\n  limits:\n    timeout_s: 5\n"
    )
    for task_name, files in (tasks if tasks is not None else {"double": {}}).items():
        task_dir = pack_dir / task_name
        task_dir.mkdir()
        defaults = {
            "task.yaml": "entry_point: double\ntags: [math]\n",
            "prompt.md": "Write double(x).",
            "starter.py": "def double(x):\n",
            "reference.py": "def double(x):\n    return 2 * x\n",
            "test_hidden.py": "from solution import double\n\ndef test_two():\n    assert double(2) == 4\n",
            "test_visible.py": "from solution import double\n\ndef test_one():\n    assert double(1) == 2\n",
        }
        defaults.update(files)
        for filename, content in defaults.items():
            if content is None:
                continue
            path = task_dir / filename
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(content) if isinstance(content, str) else path.write_bytes(content)
    return pack_dir
