"""What travels between the driver and the sandbox actors.

A request is split into its *task part* — tests, the repository's files, limits, runner settings:
everything but the solution's text and the request id — and the solution. The task part is
content-addressed (sha256) and sent to an actor once; later requests name it by key. Across a
GRPO batch (many completions per task) this keeps per-request traffic to the program's own text.
"""

from __future__ import annotations

import copyreg
import hashlib
import types
from dataclasses import fields
from typing import Any

from codegym.sandbox.types import ExecRequest

# Tasks and requests hold their files in read-only MappingProxyType views, which pickle refuses;
# they cross to actors as plain dicts and come back as views (their own __post_init__ re-wraps them).
copyreg.pickle(types.MappingProxyType, lambda view: (types.MappingProxyType, (dict(view),)))

_EXCLUDED = ("request_id",)


def _plain(value: Any) -> Any:
    if isinstance(value, (types.MappingProxyType, dict)):
        return dict(value)
    return value


def split_request(request: ExecRequest) -> tuple[str, dict[str, Any], str]:
    """(key, task part, solution text): equal task parts share a key, whatever the solution."""
    part: dict[str, Any] = {}
    for spec in fields(request):
        if spec.name in _EXCLUDED:
            continue
        part[spec.name] = _plain(getattr(request, spec.name))
    files = dict(part["files"])
    solution = files.pop(request.solution_path)
    part["files"] = files
    return task_part_key(part), part, solution


def task_part_key(part: dict[str, Any]) -> str:
    digest = hashlib.sha256()
    for name in sorted(part):
        value = part[name]
        if isinstance(value, dict):
            value = sorted(value.items())
        digest.update(name.encode() + b"\0" + repr(value).encode("utf-8", "surrogatepass") + b"\0")
    return digest.hexdigest()


def join_request(part: dict[str, Any], solution: str, request_id: str) -> ExecRequest:
    files = {**part["files"], part["solution_path"]: solution}
    return ExecRequest(**{**part, "files": files, "request_id": request_id})
