"""The bundled packs written in published dataset schemas: mbpp_mini (MBPP's mbpp.jsonl) and cp_call
(LiveCodeBench's code_generation rows) load through the registry with their quirks intact."""

from __future__ import annotations

import json
from pathlib import Path

from codegym.eval.pack_check import check_pack
from codegym.tasks.formats.livecodebench import decode_private_cases
from codegym.tasks.registry import bundled_tasks_dir

TASKS = bundled_tasks_dir() or Path("tasks")


def raw_rows(pack: str) -> list[dict]:
    return [json.loads(line) for line in (TASKS / pack / "problems.jsonl").read_text().splitlines()]


def test_mbpp_mini_keeps_mbpps_quirks_and_loads(task_registry) -> None:
    rows = raw_rows("mbpp_mini")
    assert len(rows) >= 10
    assert all(
        set(r) == {"text", "code", "task_id", "test_setup_code", "test_list", "challenge_test_list"}
        for r in rows
    )
    assert sum("\r\n" in r["code"] for r in rows) >= 8 and sum("\t" in r["code"] for r in rows) >= 4
    assert sum(bool(r["test_setup_code"]) for r in rows) == 2
    mixed = [r for r in rows if "\t" in r["code"] and "\n        " in r["code"]]
    assert mixed, "a row whose tab/space mix only Python 2 could read"
    pack = task_registry.load("mbpp_mini")
    assert pack.format == "mbpp" and len(pack) == len(rows)
    assert "test_challenge_1" in pack.get("1001").hidden_tests.files["test_hidden.py"]


def test_mbpp_mini_references_pass_and_stubs_fail(task_registry, local_backend) -> None:
    results = check_pack(task_registry.load("mbpp_mini"), local_backend)
    assert {r.task_id: r.problems for r in results if not r.ok} == {}


def test_cp_call_is_call_based_livecodebench_with_references(task_registry) -> None:
    rows = raw_rows("cp_call")
    assert len(rows) >= 10
    compressed = [r for r in rows if not r["private_test_cases"].lstrip().startswith("[")]
    assert compressed and all(
        isinstance(decode_private_cases(r["private_test_cases"]), list) for r in compressed
    )
    pack = task_registry.load("cp_call")
    assert pack.format == "livecodebench" and len(pack) == len(rows)
    functions = [task.cases.function for task in pack.tasks.values() if task.cases is not None]
    assert len(functions) == len(rows)
    assert sum(f.startswith("Solution.") for f in functions) >= 5
    assert any("." not in f for f in functions)  # a plain function starter
    for task in pack.tasks.values():
        assert task.cases is not None and task.cases.kind == "call"
        assert task.visible_cases is not None and len(task.visible_cases) < len(task.cases)
        assert task.reference_solution.strip(), task.name
        assert f"def {task.cases.function.split('.')[-1]}(" in task.reference_solution
