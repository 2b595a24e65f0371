"""MBPP reader: original mbpp.jsonl and sanitized-mbpp.json rows, their quirks, and verdicts in the
sandbox (references pass, stubs fail)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from codegym.sandbox.requests import request_for_task
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats import get_format, tasks_from_rows
from codegym.tasks.formats.base import RowContext, SkipRow, read_rows
from codegym.tasks.formats.mbpp import normalise_source
from codegym.tasks.model import Task
from codegym.tasks.validate import static_problems
from tests.tasks.formats.helpers import judge_references_and_stubs

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "mbpp"
MBPP = get_format("mbpp")


def load(name: str, **options: object) -> dict[str, Task]:
    path = FIXTURES / name
    tasks, skipped = tasks_from_rows(
        MBPP, read_rows(path), RowContext("mbpp", str(path), options=options), skip=False
    )
    assert skipped == []
    return tasks


def test_original_rows_ids_prompt_and_one_test_per_assert() -> None:
    tasks = load("mbpp.jsonl")
    assert list(tasks) == ["901", "902", "903", "904"]
    task = tasks["901"]
    assert task.entry_point == "count_vowels" and task.metadata["variant"] == "original"
    assert task.prompt.startswith(
        "Write a function to count the vowels in a string. Your code should pass these tests:\n\n"
    )
    assert "assert count_vowels('xyz') == 0" in task.prompt
    hidden = task.hidden_tests.files["test_hidden.py"]
    assert hidden.startswith("from solution import count_vowels  #")
    assert hidden.count("def test_") == 3
    # challenge tests are judged only when asked for, and never shown
    assert "count_vowels('') == 0" not in hidden and "count_vowels('')" not in task.prompt
    assert task.visible_tests.files["test_visible.py"] == hidden
    assert static_problems(task) == []


def test_challenge_tests_option_adds_them_to_the_hidden_suite_only() -> None:
    task = load("mbpp.jsonl", challenge_tests=True)["901"]
    hidden = task.hidden_tests.files["test_hidden.py"]
    assert "def test_challenge_1():\n    assert count_vowels('') == 0" in hidden
    assert "challenge" not in task.visible_tests.files["test_visible.py"]
    assert "count_vowels('')" not in task.prompt


def test_crlf_and_tab_references_are_normalised_so_they_compile() -> None:
    raw = json.loads((FIXTURES / "mbpp.jsonl").read_text().splitlines()[1])["code"]
    with pytest.raises(TabError):
        compile(raw, "mbpp", "exec")
    task = load("mbpp.jsonl")["902"]
    assert "\r" not in task.reference_solution and "\t" not in task.reference_solution
    namespace: dict[str, object] = {}
    exec(compile(task.reference_solution, "ref", "exec"), namespace)
    assert namespace["bigger"](3, 7) == 7 and namespace["bigger"](4, 4) == 4  # type: ignore[operator]
    # consistent tabs stay tabs (only a mix that does not compile is expanded)
    assert load("mbpp.jsonl")["901"].reference_solution.count("\t") > 0
    assert normalise_source("x = '\\t'\r\n") == "x = '\\t'\n"


def test_setup_code_runs_in_the_test_module_with_the_programs_class() -> None:
    task = load("mbpp.jsonl")["903"]
    hidden = task.hidden_tests.files["test_hidden.py"]
    assert hidden.startswith("from solution import count_leaves, Node  #")
    assert "root.left = Node(2)" in hidden and "\r" not in hidden
    assert "The tests first run this setup code:\n\nroot = Node(1)" in task.prompt


def test_names_the_asserts_read_from_the_references_imports_come_from_the_stdlib() -> None:
    hidden = load("mbpp.jsonl")["904"].hidden_tests.files["test_hidden.py"]
    assert "from solution import circle_area  #" in hidden
    assert "\nimport math\n" in hidden and "import math, " not in hidden


def test_sanitized_rows_use_prompt_and_test_imports() -> None:
    tasks = load("sanitized-mbpp.json")
    assert list(tasks) == ["901", "904"]
    task = tasks["904"]
    assert task.metadata["variant"] == "sanitized"
    assert task.metadata["source_file"] == "Mike's Copy of Benchmark Questions Verification V2.ipynb"
    assert task.prompt.startswith("Write a function to find the area of a circle given its radius. Your code")
    hidden = task.hidden_tests.files["test_hidden.py"]
    assert hidden.count("import math") == 1 and hidden.count("def test_") == 2


def row(**fields: object) -> dict[str, object]:
    base: dict[str, object] = {
        "text": "Add.",
        "code": "def add(a, b):\r\n\treturn a + b",
        "task_id": 7,
        "test_setup_code": "",
        "test_list": ["assert add(1, 2) == 3"],
        "challenge_test_list": [],
    }
    return {**base, **fields}


def context() -> RowContext:
    return RowContext("mbpp", "rows.jsonl", line=3)


def test_bad_rows_name_file_task_and_field() -> None:
    with pytest.raises(TaskPackError) as info:
        MBPP.task_from_row(row(test_list="assert add(1, 2) == 3"), context())
    assert info.value.task == "7" and info.value.field == "test_list" and "rows.jsonl:3" in str(info.value)
    with pytest.raises(TaskPackError) as info:
        MBPP.task_from_row(row(code=""), context())
    assert info.value.field == "code"
    with pytest.raises(TaskPackError) as info:
        MBPP.task_from_row({k: v for k, v in row().items() if k != "task_id"}, context())
    assert info.value.field == "task_id"


def test_rows_that_cannot_be_judged_are_skipped_with_the_reason() -> None:
    with pytest.raises(SkipRow, match="test_list is empty"):
        MBPP.task_from_row(row(test_list=[]), context())
    with pytest.raises(SkipRow, match="code is not valid Python 3"):
        MBPP.task_from_row(row(code="def add(a, b):\r\n\tprint 'x'"), context())
    with pytest.raises(SkipRow, match="call no function that the reference defines"):
        MBPP.task_from_row(row(test_list=["assert plus(1, 2) == 3"]), context())


def test_the_programs_other_globals_never_enter_the_tests() -> None:
    # `abs` redefined by the program must not change what the asserts compute
    task = MBPP.task_from_row(row(test_list=["assert abs(add(-5, 2)) == 3"]), context())
    assert task.hidden_tests.files["test_hidden.py"].startswith("from solution import add  #")


def judge(local_backend, task: Task, solution: str):
    return local_backend.execute(request_for_task(task, solution))


@pytest.mark.parametrize("name", ["mbpp.jsonl", "sanitized-mbpp.json"])
def test_references_pass_and_stubs_fail_in_the_sandbox(local_backend, name: str) -> None:
    tasks = load(name, challenge_tests=True)
    for task, reference, stub in judge_references_and_stubs(local_backend, tasks):
        assert reference.passed, (task.name, reference.status, reference.message, reference.tests)
        assert reference.tests_total == task.hidden_tests.files["test_hidden.py"].count("def test_")
        assert not stub.passed, task.name


def test_a_program_redefining_a_builtin_does_not_change_the_asserts(local_backend) -> None:
    task = MBPP.task_from_row(row(test_list=["assert abs(add(-5, 2)) == 3"]), context())
    cheat = "def abs(x):\n    return 3\n\ndef add(a, b):\n    return 0\n"
    assert not local_backend.execute(request_for_task(task, cheat)).passed
    assert local_backend.execute(request_for_task(task, task.reference_solution)).passed
