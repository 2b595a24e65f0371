"""The codebase stays ruff clean: CI runs the test suite, so lint and format are part of it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RUFF = Path(sys.executable).with_name("ruff")


@pytest.mark.parametrize("command", [["check"], ["format", "--check"]], ids=["check", "format"])
def test_ruff(command: list[str]) -> None:
    completed = subprocess.run(
        [str(RUFF), *command, "--no-cache", "."], cwd=ROOT, capture_output=True, text=True, timeout=300
    )
    assert completed.returncode == 0, completed.stdout + completed.stderr


def test_library_errors_name_settings_not_cli_flags() -> None:
    """Outside codegym/cli a message names a setting as a `Setting` (the CLI writes it as its flag),
    never as flag text: `--k` means nothing to a library caller who passed `ks=`."""
    import ast
    import re

    flag = re.compile(r"(^|[\s(])--[a-z]")
    found = []
    for path in sorted((ROOT / "codegym").rglob("*.py")):
        if "cli" in path.relative_to(ROOT / "codegym").parts:
            continue
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            if not isinstance(node, ast.Call):
                continue
            callee = node.func.id if isinstance(node.func, ast.Name) else getattr(node.func, "attr", "")
            if not callee.endswith(("Error", "BadValue", "Unavailable")):
                continue
            for inner in ast.walk(node):
                if (
                    isinstance(inner, ast.Constant)
                    and isinstance(inner.value, str)
                    and flag.search(inner.value)
                ):
                    found.append(f"{path.relative_to(ROOT)}:{inner.lineno}: {inner.value!r}")
    assert found == [], "\n".join(found)
