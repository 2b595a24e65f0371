"""The bundled cp_stdio pack (APPS schema): loads through the registry, every task has a Python 3
reference whose output is the expected one, and its checker accepts exactly the valid orders."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from codegym.tasks.formats.contest import python3_problem
from codegym.tasks.registry import TaskRegistry, bundled_tasks_dir


@pytest.fixture(scope="module")
def pack():
    return TaskRegistry().load("cp_stdio")


def test_loads_through_the_registry(pack) -> None:
    assert pack.format == "apps" and len(pack) >= 15
    for task in pack.tasks.values():
        assert task.cases.kind == "stdio" and len(task.cases) >= 3, task.name
        assert task.reference_solution and python3_problem(task.reference_solution) is None, task.name
        assert "standard input" in task.prompt
    assert any(case.input.count("\n") > 1 for task in pack.tasks.values() for case in task.cases.cases)


def test_float_answers_are_judged_with_an_absolute_tolerance(pack) -> None:
    comparison = pack.get("triangle_area").cases.comparison
    assert (comparison.match, comparison.float_abs, comparison.float_rel) == ("tokens", 1e-6, 0.0)


def test_only_task_order_uses_the_checker(pack) -> None:
    judged = {name for name, task in pack.tasks.items() if task.cases.comparison.checker}
    assert judged == {"task_order"}


def _check():
    namespace: dict = {}
    source = (bundled_tasks_dir() / "cp_stdio" / "checker.py").read_text()
    exec(compile(source, "checker.py", "exec"), namespace)
    return namespace["check"]


@pytest.mark.parametrize(
    ("actual", "accepted"),
    [
        ("4 3 1 2", True),
        ("3 4 2 1", True),
        ("1 2 3 4", False),
        ("4 3 1", False),
        ("4 3 1 1", False),
        ("-1", False),
    ],
)
def test_checker_accepts_any_valid_order(actual: str, accepted: bool) -> None:
    # 4 before 1 and 3 before 2
    assert _check()("4 2\n4 1\n3 2\n", "3 4 1 2\n", actual) is accepted


def test_checker_on_a_cycle_wants_minus_one() -> None:
    check = _check()
    assert check("2 2\n1 2\n2 1\n", "-1\n", "-1\n") is True
    assert check("2 2\n1 2\n2 1\n", "-1\n", "1 2\n") is False


def _run(source: str, stdin: str) -> str:
    return subprocess.run(
        [sys.executable, "-c", source], input=stdin, capture_output=True, text=True, timeout=20, check=True
    ).stdout


def test_each_reference_prints_the_expected_output_and_a_pass_body_prints_nothing(pack) -> None:
    """The pack's own consistency, without the sandbox: the data file matches its references."""
    from codegym.tasks.validate import stub_solution

    for task in pack.tasks.values():
        case = task.cases.cases[0]
        assert _run(task.reference_solution, case.input).split() == case.expected.split(), task.name
        assert _run(stub_solution(task.reference_solution), case.input).strip() == "", task.name


def test_problems_file_is_in_the_apps_schema() -> None:
    import json

    rows = (bundled_tasks_dir() / "cp_stdio" / "problems.jsonl").read_text().splitlines()
    for line in rows:
        row = json.loads(line)
        assert set(row) == {
            "problem_id",
            "question",
            "solutions",
            "input_output",
            "difficulty",
            "url",
            "starter_code",
        }
        assert isinstance(row["solutions"], str) and isinstance(row["input_output"], str)
        assert isinstance(json.loads(row["input_output"])["inputs"], list)
    assert Path(bundled_tasks_dir() / "cp_stdio" / "pack.yaml").is_file()
