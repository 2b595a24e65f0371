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


def test_codegym_modules_import_each_other_without_a_cycle() -> None:
    """Module-level imports between codegym's modules form no cycle (sandbox.backend and
    sandbox.local once imported each other): each module can be read, and imported, on its own."""
    import ast

    graph: dict[str, set[str]] = {}
    for path in (ROOT / "codegym").rglob("*.py"):
        if "inside" in path.parts:  # the in-sandbox code imports no codegym module
            continue
        name = ".".join(path.relative_to(ROOT).with_suffix("").parts).removesuffix(".__init__")
        imported: set[str] = set()
        for node in ast.parse(path.read_text(encoding="utf-8")).body:  # not function or TYPE_CHECKING
            if isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
                imported |= {node.module, *(f"{node.module}.{alias.name}" for alias in node.names)}
            elif isinstance(node, ast.Import):
                imported |= {alias.name for alias in node.names}
        graph[name] = imported
    edges = {
        name: {other for other in imported if other in graph and other != name}
        for name, imported in graph.items()
    }

    def cycle_from(start: str) -> list[str] | None:
        path, seen = [start], set()
        stack = [iter(sorted(edges[start]))]
        while stack:
            following = next(stack[-1], None)
            if following is None:
                stack.pop()
                seen.add(path.pop())
            elif following == start:
                return [*path, start]
            elif following not in seen and following not in path:
                path.append(following)
                stack.append(iter(sorted(edges[following])))
        return None

    cycles = [cycle for name in sorted(edges) if (cycle := cycle_from(name))]
    assert cycles == [], " -> ".join(cycles[0])


def test_no_test_module_imports_another() -> None:
    """Shared test code lives in conftest.py and helper modules: importing a test module from another
    would collect (and run) its tests twice and tie unrelated suites together."""
    import ast

    found = []
    for path in sorted((ROOT / "tests").rglob("*.py")):
        try:
            tree = ast.parse(path.read_text(encoding="utf-8"))
        except SyntaxError:  # fixtures: programs broken on purpose
            continue
        for node in ast.walk(tree):
            names = (
                [node.module or ""]
                if isinstance(node, ast.ImportFrom)
                else [a.name for a in node.names]
                if isinstance(node, ast.Import)
                else []
            )
            for name in names:
                if name.startswith("tests.") and name.rpartition(".")[2].startswith("test_"):
                    found.append(f"{path.relative_to(ROOT)}:{node.lineno}: {name}")
    assert found == [], "\n".join(found)
