"""From a model's completion to the file it wrote, and which of its lines the model wrote."""

from __future__ import annotations

import ast
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from codegym.tasks.model import Task

_FENCE = re.compile(r"```[ \t]*(?:python|py|python3)?[ \t]*\n(.*?)(?:```|\Z)", re.DOTALL | re.IGNORECASE)


@dataclass(frozen=True)
class ExtractedCode:
    code: str  # the whole solution file
    first_generated_line: int  # 1-based; lines before it came from the prompt


def completion_text(completion: Any) -> str:
    """TRL passes plain strings, or (conversational) a list of messages; take the assistant's text."""
    if isinstance(completion, str):
        return completion
    if isinstance(completion, Mapping):
        return str(completion.get("content") or "")
    if isinstance(completion, Sequence):
        texts = [
            m.get("content") or "" for m in completion if isinstance(m, Mapping) and m.get("role") != "user"
        ]
        return "\n".join(str(t) for t in texts)
    return str(completion)


def _defines(code: str, name: str | None) -> bool:
    try:
        tree = ast.parse(code)
    except SyntaxError:
        return False
    names = {
        n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
    }
    return name in names if name else bool(names)


def _line_count(text: str) -> int:
    return text.count("\n") + (0 if text.endswith("\n") or not text else 1)


def extract_code(task: Task, completion: Any, completion_format: str = "auto") -> ExtractedCode:
    """`append`: completion continues the prompt/starter. `solution`: it is the whole file (the
    first fenced block if there is one). `auto`: a fenced block or a module defining the entry
    point is the whole file; anything else is appended."""
    text = completion_text(completion)
    fenced = _FENCE.search(text)
    candidate = fenced.group(1) if fenced else text
    whole_file = completion_format == "solution" or (
        completion_format == "auto" and (fenced is not None or _defines(candidate, task.entry_point))
    )
    if not whole_file:
        return ExtractedCode(task.prefix + text, _line_count(task.prefix) + 1)
    if task.prefix and candidate.startswith(task.prefix):
        return ExtractedCode(candidate, _line_count(task.prefix) + 1)
    return ExtractedCode(candidate, 1)


def first_generated_line(task: Task, code: str) -> int:
    """For a given whole file: lines copied verbatim from the starter don't count as generated."""
    return _line_count(task.prefix) + 1 if task.prefix and code.startswith(task.prefix) else 1
