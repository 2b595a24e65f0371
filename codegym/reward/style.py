"""The `style` component: ruff findings on the lines the model wrote, one ruff process per batch."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path


@dataclass(frozen=True)
class StyleReport:
    findings: tuple[str, ...]  # "CODE:line" for findings on generated lines
    generated_lines: int

    def score(self, scale: float) -> float:
        """1 / (1 + scale * findings / generated_lines): 1 for clean code, 0.5 at one finding per
        `generated_lines / scale` lines."""
        if self.generated_lines == 0:
            return 0.0
        return 1.0 / (1.0 + scale * len(self.findings) / self.generated_lines)


def ruff_executable() -> str:
    candidate = Path(sys.executable).with_name("ruff")
    return str(candidate) if candidate.exists() else "ruff"


def _scratch_parent() -> str | None:
    """Memory-backed /dev/shm when usable: creating and deleting hundreds of small files per batch
    on a disk filesystem (ext4's inode allocator) costs more than the ruff run itself."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


def generated_line_count(code: str, first_generated_line: int) -> int:
    return sum(1 for line in code.splitlines()[first_generated_line - 1 :] if line.strip())


def style_reports(samples: Sequence[tuple[str, int]], ruff_config: str) -> list[StyleReport]:
    """One report per (code, first generated line); ruff runs once over the whole batch."""
    if not samples:
        return []
    with tempfile.TemporaryDirectory(prefix="codegym-style-", dir=_scratch_parent()) as directory:
        root = Path(directory)
        for index, (code, _) in enumerate(samples):
            (root / f"sample_{index}.py").write_text(code, encoding="utf-8")
        completed = subprocess.run(
            [
                ruff_executable(),
                "check",
                "--no-cache",
                "--exit-zero",
                "--output-format",
                "json",
                # the program's own suppression comments would otherwise decide what is found
                "--ignore-noqa",
                "--config",
                ruff_config,
                "--force-exclude",
                ".",
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"ruff failed ({completed.returncode}): {completed.stderr.strip()[:500]}")
        findings: dict[int, list[str]] = {i: [] for i in range(len(samples))}
        for item in json.loads(completed.stdout or "[]"):
            index = int(Path(item["filename"]).stem.split("_")[1])
            row = int((item.get("location") or {}).get("row") or 0)
            if row >= samples[index][1]:
                findings[index].append(f"{item.get('code') or 'syntax-error'}:{row}")
    return [
        StyleReport(tuple(findings[i]), generated_line_count(code, first))
        for i, (code, first) in enumerate(samples)
    ]
