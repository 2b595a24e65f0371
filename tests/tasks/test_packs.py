"""Task-pack formats, discovery and the errors bad packs get."""

from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from codegym.tasks.dirpack import load_directory_pack
from codegym.tasks.errors import TaskPackError, UnknownNameError
from codegym.tasks.humaneval import load_humaneval_pack
from codegym.tasks.jsonlpack import build_test_module, load_jsonl_pack
from codegym.tasks.registry import TaskRegistry
from codegym.tasks.validate import static_problems, stub_solution
from tests.helpers import write_pack


def test_directory_pack_loads_with_defaults_and_hash(tmp_path: Path) -> None:
    pack = load_directory_pack(write_pack(tmp_path))
    task = pack.get("double")
    assert pack.version == "0.1" and len(pack.content_hash) == 64
    assert task.task_id == "mini/double" and pack.get("mini/double") is task
    assert task.limits.timeout_s == 5
    assert task.solution_from_completion("    return 2 * x\n") == task.reference_solution
    assert set(task.hidden_tests.files) == {"test_hidden.py"} and task.visible_tests
    assert task.metadata["tags"] == ["math"]


def test_content_hash_changes_with_any_file(tmp_path: Path) -> None:
    pack_dir = write_pack(tmp_path)
    before = load_directory_pack(pack_dir).content_hash
    (pack_dir / "double" / "test_hidden.py").write_text("def test_x():\n    assert True\n")
    assert load_directory_pack(pack_dir).content_hash != before


@pytest.mark.parametrize(
    ("mutation", "expected"),
    [
        ({"prompt.md": None}, ("task 'double'", "prompt.md", "required file is missing")),
        ({"test_hidden.py": None}, ("task 'double'", "test_hidden.py", "required file is missing")),
        ({"task.yaml": "entry_point: [1]\n"}, ("task.yaml", "field 'entry_point'", "identifier")),
        ({"task.yaml": "entry_point: double\ntimeout: 3\n"}, ("task.yaml", "field 'timeout'", "unknown key")),
        ({"task.yaml": "limits:\n  timeout_s: -1\n"}, ("task.yaml", "field 'limits'", "timeout_s")),
        ({"task.yaml": "limits:\n  memory_mb: lots\n"}, ("field 'limits'", "memory_mb")),
        ({"task.yaml": "solution_path: ../escape.py\n"}, ("field 'solution_path'", "inside the task's repo")),
        ({"task.yaml": "entry_point: double\n  bad: indent\n"}, ("task.yaml", "invalid YAML")),
        ({"reference.py": b"\xff\xfe not utf-8"}, ("reference.py", "not UTF-8")),
        ({"repo/solution.py": "x = 1\n"}, ("field 'solution_path'", "must not exist")),
    ],
)
def test_malformed_task_errors_name_pack_task_file_and_field(
    tmp_path: Path, mutation: dict, expected: tuple
) -> None:
    pack_dir = write_pack(tmp_path, tasks={"double": mutation})
    with pytest.raises(TaskPackError) as info:
        load_directory_pack(pack_dir)
    message = str(info.value)
    assert "pack 'mini'" in message
    for fragment in expected:
        assert fragment in message


@pytest.mark.parametrize(
    ("pack_yaml", "fragment"),
    [
        ("name: mini\ndescription: no version\n", "field 'version'"),
        ("name: mini\nversion: 1\nextra: 2\n", "field 'extra'"),
        ("- a\n- b\n", "must be a mapping"),
        ("name: mini\nversion: 1\ndefaults:\n  limits:\n    cpu: 1\n", "field 'cpu'"),
    ],
)
def test_malformed_pack_yaml(tmp_path: Path, pack_yaml: str, fragment: str) -> None:
    pack_dir = write_pack(tmp_path, pack_yaml=pack_yaml)
    with pytest.raises(TaskPackError, match=r"pack\.yaml") as info:
        load_directory_pack(pack_dir)
    assert fragment in str(info.value)


def test_registry_discovers_dirs_jsonl_and_lists_valid_names(tmp_path: Path) -> None:
    write_pack(tmp_path, "alpha")
    row = {
        "task_id": "T/0",
        "prompt": "def f():\n",
        "canonical_solution": "    return 1\n",
        "test": "def check(candidate):\n    assert candidate() == 1\n",
        "entry_point": "f",
    }
    (tmp_path / "beta.jsonl").write_text(json.dumps(row) + "\n")
    registry = TaskRegistry([tmp_path], use_defaults=False, use_entry_points=False)
    assert registry.names() == ["alpha", "beta"]
    assert registry.load("beta").get("T/0").entry_point == "f"
    with pytest.raises(UnknownNameError) as info:
        registry.load("alpah")
    assert "Did you mean 'alpha'" in str(info.value) and "alpha, beta" in str(info.value)
    with pytest.raises(UnknownNameError, match="Valid task names: double"):
        registry.load("alpha").get("triple")


def test_explicit_tasks_dir_must_exist(tmp_path: Path) -> None:
    with pytest.raises(TaskPackError, match="does not exist"):
        TaskRegistry([tmp_path / "missing"])


def test_entry_point_packs_are_discovered(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A real installed-distribution layout on sys.path: importlib.metadata finds its entry point."""
    pack_dir = write_pack(tmp_path / "data", "plugged")
    (tmp_path / "plugged_pack.py").write_text(f"PACK_DIR = {str(pack_dir)!r}\n")
    dist_info = tmp_path / "plugged_pack-1.0.dist-info"
    dist_info.mkdir()
    (dist_info / "METADATA").write_text("Metadata-Version: 2.1\nName: plugged-pack\nVersion: 1.0\n")
    (dist_info / "entry_points.txt").write_text("[codegym.tasks]\nplugged = plugged_pack:PACK_DIR\n")
    monkeypatch.syspath_prepend(str(tmp_path))
    registry = TaskRegistry(use_defaults=False)
    assert {"plugged", "humaneval"} <= set(registry.names())
    assert registry.load("plugged").get("double").entry_point == "double"
    sys.modules.pop("plugged_pack", None)


def test_jsonl_pack_errors_name_line_and_field(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(
        '{"task_id": "A", "prompt": "x", "test": "t", "entry_point": "not an id", "canonical_solution": ""}\n'
    )
    with pytest.raises(TaskPackError, match="field 'entry_point'"):
        load_jsonl_pack(path, name="bad")
    path.write_text("{broken\n")
    with pytest.raises(TaskPackError, match="line 1 is not valid JSON"):
        load_jsonl_pack(path, name="bad")


def test_humaneval_pack_is_complete_and_versioned() -> None:
    pack = load_humaneval_pack()
    assert len(pack) == 164
    assert pack.version == "1.0.3"
    task = pack.get("HumanEval/0")
    assert task.entry_point == "has_close_elements" and task.reference_solution.startswith(task.prompt)


def test_built_test_modules_are_kept_and_read_back_unchanged(tmp_path: Path) -> None:
    """The memo of built test modules gives the same pack as building; a damaged memo file is
    rebuilt, and an unwritable memo folder only costs the build."""
    memo = tmp_path / "memo"
    built = load_humaneval_pack(memo)
    (memo_file,) = memo.iterdir()
    remembered = load_humaneval_pack(memo)
    assert {k: t.hidden_tests for k, t in remembered.tasks.items()} == {
        k: t.hidden_tests for k, t in built.tasks.items()
    }
    assert remembered.content_hash == built.content_hash
    memo_file.write_text('{"HumanEval/0": 7', encoding="utf-8")
    again = load_humaneval_pack(memo)
    assert again.tasks["HumanEval/0"].hidden_tests == built.tasks["HumanEval/0"].hidden_tests
    assert json.loads(memo_file.read_text(encoding="utf-8"))["HumanEval/0"]  # rewritten whole
    blocked = tmp_path / "a-file"
    blocked.write_text("not a folder", encoding="utf-8")
    assert load_humaneval_pack(blocked / "memo").tasks.keys() == built.tasks.keys()


def test_humaneval_check_is_split_into_cases_but_loops_stay_whole() -> None:
    split = build_test_module(
        "def check(candidate):\n    x = 2\n    assert candidate(x) == 4\n"
        "    assert True\n    assert candidate(3) == 6\n",
        "f",
    )
    namespace: dict = {}
    exec(split.replace("from solution import f", "f = None"), namespace)
    cases = sorted(name for name in namespace if name.startswith("test_"))
    assert cases == ["test_check_0", "test_check_1"]
    whole = build_test_module(
        "def check(candidate):\n    for i in range(3):\n        assert candidate(i) == 2*i\n", "f"
    )
    assert "def test_check():" in whole and "test_check_0" not in whole
    literal = build_test_module(
        "def check(c):\n    assert c('''a\n  b''') == 1\n    assert c('x') == 2\n", "f"
    )
    assert "'a\\n  b'" in literal  # multi-line literals survive re-indentation unchanged


def test_static_checks_and_stub(tmp_path: Path) -> None:
    pack = load_directory_pack(write_pack(tmp_path, tasks={"double": {"starter.py": "def triple(x):\n"}}))
    problems = static_problems(pack.get("double"))
    assert any("does not start with the starter" in p for p in problems)
    stub = stub_solution('def f(x):\n    """Doc."""\n    return x\n')
    assert stub == 'def f(x):\n    """Doc."""\n    pass\n'
