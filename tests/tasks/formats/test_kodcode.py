"""KodCode reader: KodCode-V1 rows become pytest modules that start as KodCode's harness starts them
(`from solution import *`), and are judged in the sandbox."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegym.sandbox.requests import request_for_task
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats import get_format, tasks_from_rows
from codegym.tasks.formats.base import RowContext, SkipRow, read_rows
from codegym.tasks.model import Task
from codegym.tasks.validate import static_problems
from tests.tasks.formats.helpers import judge_references_and_stubs

FIXTURE = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "kodcode" / "kodcode_v1.jsonl"
KODCODE = get_format("kodcode")


def load() -> dict[str, Task]:
    tasks, skipped = tasks_from_rows(KODCODE, read_rows(FIXTURE), RowContext("kod", str(FIXTURE)), skip=False)
    assert skipped == []
    return tasks


def test_rows_become_tasks_with_the_harness_star_import() -> None:
    tasks = load()
    assert list(tasks) == ["Leetcode_90001_I", "Prefill_90002_C", "Data_Structure_90003_I"]
    for task in tasks.values():
        source = task.hidden_tests.files["test_hidden.py"]
        assert source.startswith("from solution import *\n\n")
        assert task.solution_path == "solution.py" and task.prefix == ""
        assert static_problems(task) == []
    task = tasks["Leetcode_90001_I"]
    assert task.entry_point == "longest_run"
    assert task.prompt.endswith("Note that the output function should be `def longest_run(nums):`.")
    assert task.metadata["subset"] == "Leetcode" and task.metadata["gpt_difficulty"] == "easy"


def test_class_questions_without_test_info_take_the_imported_class() -> None:
    task = load()["Data_Structure_90003_I"]
    assert task.entry_point == "MinStack"
    assert "Note that the output function" not in task.prompt


def test_test_info_as_a_json_string_and_the_pipelines_test_code_field() -> None:
    row = {
        "question_id": "Filter_1_I",
        "question": "Double it.",
        "solution": "def double(x):\n    return 2 * x\n",
        "test_code": "def test_double():\n    assert double(2) == 4\n",
        "test_info": '[{"function_name": "double", "function_declaration": "def double(x):"}]',
    }
    task = KODCODE.task_from_row(row, RowContext("kod", "rows.jsonl"))
    assert task.entry_point == "double"
    assert task.hidden_tests.files["test_hidden.py"].endswith("assert double(2) == 4\n")


def test_bad_rows_error_or_skip_with_the_reason() -> None:
    good = {
        "question_id": "X_1_I",
        "question": "Q",
        "solution": "def f():\n    return 1\n",
        "test": "def test_f():\n    assert f() == 1\n",
    }
    context = RowContext("kod", "rows.jsonl", line=9)
    with pytest.raises(TaskPackError) as info:
        KODCODE.task_from_row({**good, "solution": None}, context)
    assert (info.value.task, info.value.field) == ("X_1_I", "solution") and "rows.jsonl:9" in str(info.value)
    with pytest.raises(TaskPackError) as info:
        KODCODE.task_from_row({**good, "test_info": "{not json"}, context)
    assert info.value.field == "test_info"
    with pytest.raises(SkipRow, match="test is not valid Python 3"):
        KODCODE.task_from_row({**good, "test": "def test_f(:\n"}, context)
    with pytest.raises(SkipRow, match="test is empty"):
        KODCODE.task_from_row({**good, "test": "  "}, context)


@pytest.mark.parametrize(
    ("test", "named"),
    [
        (
            "def test_greet(capsys):\n    greet('Bob')\n    assert capsys.readouterr().out == 'Hi Bob\\n'\n",
            "capsys",
        ),
        (
            "def test_save(tmp_path):\n    save(tmp_path / 'x')\n    assert (tmp_path / 'x').exists()\n",
            "tmp_path",
        ),
        (
            "def test_ask(monkeypatch):\n    monkeypatch.setattr('builtins.input', lambda: '3')\n"
            "    assert ask() == 3\n",
            "monkeypatch",
        ),
        (
            "import pytest\n@pytest.mark.usefixtures('capfd')\ndef test_out():\n    assert out() is None\n",
            "capfd",
        ),
        (
            "from unittest import mock\n\ndef test_ask():\n    with mock.patch('builtins.input', return_value='3'):\n"
            "        assert ask() == 3\n",
            "patches builtins.input",
        ),
        (
            "import sys\nfrom io import StringIO\n\ndef test_greet():\n    sys.stdout = StringIO()\n"
            "    greet('Bob')\n    assert sys.stdout.getvalue() == 'Hi Bob\\n'\n",
            "replaces sys.stdout",
        ),
        (
            "import io\nfrom contextlib import redirect_stdout\n\ndef test_greet():\n    out = io.StringIO()\n"
            "    with redirect_stdout(out):\n        greet('Ann')\n    assert out.getvalue() == 'Hi Ann\\n'\n",
            "redirect_stdout",
        ),
        (
            "import tempfile\n\ndef test_save():\n    with tempfile.TemporaryDirectory() as d:\n"
            "        save(d + '/x')\n",
            "tempfile",
        ),
        (
            "import pytest\n\ndef test_ask():\n    with pytest.MonkeyPatch.context() as m:\n"
            "        m.setattr('builtins.input', lambda: '3')\n        assert ask() == 3\n",
            "MonkeyPatch",
        ),
    ],
    ids=[
        "capsys",
        "tmp_path",
        "monkeypatch",
        "usefixtures",
        "mock-input",
        "sys-stdout",
        "redirect",
        "tempfile",
        "MonkeyPatch",
    ],
)
def test_rows_whose_tests_use_fixtures_of_the_tests_own_process_are_skipped(test: str, named: str) -> None:
    """The program runs in another process: capsys never sees its output, tmp_path is unreadable to
    it, monkeypatch patches the harness's builtins; a correct program would fail (red team L3)."""
    row = {"question_id": "X_2_I", "question": "Q", "solution": "def f():\n    return 1\n", "test": test}
    with pytest.raises(SkipRow, match=f"act on the test's own process \\(.*{named}"):
        KODCODE.task_from_row(row, RowContext("kod", "rows.jsonl", line=1))


def test_references_pass_and_stubs_fail_in_the_sandbox(local_backend) -> None:
    tasks = load()
    for task, reference, stub in judge_references_and_stubs(local_backend, tasks):
        assert reference.passed, (task.name, reference.status, reference.message, reference.tests)
        assert reference.tests_total == task.hidden_tests.files["test_hidden.py"].count("\ndef test_")
        assert not stub.passed, task.name


def test_names_the_test_never_imports_still_reach_it_through_the_star_import(local_backend) -> None:
    task = load()["Prefill_90002_C"]
    assert "from solution import clamp" not in task.hidden_tests.files["test_hidden.py"]
    wrong = "def clamp(x, low, high):\n    return max(low, min(x, high))\n"  # no ValueError on bad bounds
    result = local_backend.execute(request_for_task(task, wrong))
    assert result.tests_total == 3 and result.tests_passed == 2
