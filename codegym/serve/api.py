"""The judge service's request format, checked before anything runs: every problem is a `BadInput` with
an HTTP status and a message naming the item and field.

    POST /v1/judge  {"items": [ITEM, ...], "reward": true}
    ITEM = {"task": {"pack": P, "task_id": T, "pack_version"?: V, "pack_hash"?: H},
            "completion": "..." | "solution": "..."}        judged like a `codegym judge` row
         | {"request": {ExecRequest fields}}                  run as given, ExecResult back
"""

from __future__ import annotations

import json
from dataclasses import dataclass, fields
from typing import Any

from codegym.sandbox.types import ExecRequest
from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.model import Limits, Task, TaskPack
from codegym.tasks.registry import TaskRegistry


class BadInput(Exception):
    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


@dataclass(frozen=True)
class TaskItem:
    task: Task
    pack: TaskPack
    code: str
    fields: dict[str, Any]


@dataclass(frozen=True)
class RequestItem:
    request: ExecRequest


def parse_body(body: bytes, max_items: int) -> tuple[list[dict[str, Any]], bool]:
    try:
        data = json.loads(body)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise BadInput(400, f"body is not valid JSON: {exc}") from exc
    if not isinstance(data, dict) or not isinstance(data.get("items"), list):
        raise BadInput(400, 'body must be a JSON object with a list "items"')
    unknown = set(data) - {"items", "reward"}
    if unknown:
        raise BadInput(400, f"unknown top-level field(s) {sorted(unknown)}; valid: items, reward")
    reward = data.get("reward", True)
    if not isinstance(reward, bool):
        raise BadInput(400, '"reward" must be true or false')
    if len(data["items"]) > max_items:
        raise BadInput(413, f"{len(data['items'])} items in one request; the limit is {max_items}")
    return data["items"], reward


def parse_item(
    index: int, raw: Any, registry: TaskRegistry, packs: dict[str, TaskPack]
) -> TaskItem | RequestItem:
    where = f"items[{index}]"
    if not isinstance(raw, dict):
        raise BadInput(400, f"{where}: must be an object")
    if "request" in raw:
        return RequestItem(request_from_wire(raw["request"], where + ".request"))
    ref = raw.get("task")
    if (
        not isinstance(ref, dict)
        or not isinstance(ref.get("pack"), str)
        or not isinstance(ref.get("task_id"), str)
    ):
        raise BadInput(400, f'{where}: needs "task": {{"pack": ..., "task_id": ...}} or "request": {{...}}')
    pack = packs.get(ref["pack"])
    if pack is None:
        try:
            pack = packs[ref["pack"]] = registry.load(ref["pack"])
        except UnknownNameError as exc:
            raise BadInput(404, f"{where}.task.pack: {exc}") from exc
        except TaskPackError as exc:
            raise BadInput(422, f"{where}.task.pack: {exc}") from exc
    version, digest = ref.get("pack_version"), ref.get("pack_hash")
    if version is not None and str(version) != str(pack.version):
        raise BadInput(
            409, f"{where}.task.pack_version: the service has {pack.name} {pack.version}, not {version}"
        )
    if digest is not None and not (
        isinstance(digest, str) and digest and pack.content_hash.startswith(digest)
    ):
        raise BadInput(
            409,
            f"{where}.task.pack_hash: the service's {pack.name} has hash {pack.content_hash[:16]}, "
            f"not {digest}",
        )
    try:
        task = pack.get(ref["task_id"])
    except UnknownNameError as exc:
        raise BadInput(404, f"{where}.task.task_id: {exc}") from exc
    completion, solution = raw.get("completion"), raw.get("solution")
    if isinstance(completion, str) == isinstance(solution, str):
        raise BadInput(400, f'{where}: give exactly one of "completion" or "solution" (a string)')
    code = task.solution_from_completion(completion) if isinstance(completion, str) else solution
    return TaskItem(task, pack, code, {k: v for k, v in raw.items() if k not in ("task",)})


def request_from_wire(data: Any, where: str) -> ExecRequest:
    if not isinstance(data, dict):
        raise BadInput(400, f"{where}: must be an object")
    known = {f.name for f in fields(ExecRequest)}
    unknown = set(data) - known
    if unknown:
        raise BadInput(400, f"{where}: unknown field(s) {sorted(unknown)}")
    values = dict(data)
    try:
        if "limits" in values:
            values["limits"] = Limits(**values["limits"])
        for name in ("measured_test_files", "gated_test_files"):
            if name in values:
                values[name] = tuple(values[name])
        return ExecRequest(**values)
    except (TypeError, ValueError) as exc:
        raise BadInput(400, f"{where}: {exc}") from exc
