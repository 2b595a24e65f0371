"""EvalPlus (HumanEval+, MBPP+): reading the released rows, EvalPlus's input rebuilding, time limits,
and its judging rules (evalplus_oracles), checked by running the fixtures' references in-process."""

from __future__ import annotations

import copy
import gzip
import json
import math
from pathlib import Path
from typing import Any

import pytest

from codegym.tasks.cases import encode_value
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats import get_format, load_format_pack
from codegym.tasks.formats.base import RowContext, SkipRow, read_rows
from codegym.tasks.formats.evalplus import (
    EXPECTED_FIELD,
    RECORD_ERROR_FIELD,
    REF_TIME_FIELD,
    mbpp_statement,
    task_from_row,
    time_limits,
)
from codegym.tasks.formats.evalplus_oracles import judge, to_builtin
from codegym.tasks.model import Limits, Task

FIXTURES = Path(__file__).resolve().parents[2] / "fixtures" / "datasets" / "evalplus"
HUMANEVAL = FIXTURES / "HumanEvalPlus.jsonl"
MBPP = FIXTURES / "MbppPlus.jsonl"


def _context(**options: Any) -> RowContext:
    return RowContext(pack="evalplus-test", file="MbppPlus.jsonl", options=options, line=1)


def _rows(path: Path) -> dict[str, dict[str, Any]]:
    return {row["task_id"]: row for row in read_rows(path)}


def _namespace(code: str) -> dict[str, Any]:
    namespace: dict[str, Any] = {}
    exec(compile(code, "solution.py", "exec"), namespace)
    return namespace


def _recorded(row: dict[str, Any], context: RowContext | None = None) -> dict[str, Any]:
    """The row as import leaves it, with the answers computed here in-process: the reference called
    on a copy of each rebuilt input, as EvalPlus computes its expected outputs."""
    row = copy.deepcopy(row)
    row[EXPECTED_FIELD] = ["placeholder"] * (len(row["base_input"]) + len(row["plus_input"]))
    row[REF_TIME_FIELD] = [0.0] * len(row[EXPECTED_FIELD])
    task = task_from_row(row, context or _context())  # the rebuilt inputs
    function = _namespace(task.reference_solution)[task.entry_point]
    answers = []
    for case in task.cases.cases:
        value = function(*copy.deepcopy(case.input))
        if task.cases.comparison.oracle == "is_not_none":
            value = value is not None
        answers.append(encode_value(value))
    row[EXPECTED_FIELD] = answers
    row[REF_TIME_FIELD] = [0.001] * len(answers)
    return row


def _task(path: Path, task_id: str, **options: Any) -> Task:
    context = _context(**options)
    return task_from_row(_recorded(_rows(path)[task_id], context), context)


def _passes(task: Task, code: str) -> list[bool]:
    """Each case's verdict for a program, judged here as the harness judges it."""
    assert task.cases is not None
    function = _namespace(code)[task.cases.function]
    comparison = task.cases.comparison
    verdicts = []
    for case in task.cases.cases:
        try:
            actual = function(*copy.deepcopy(case.input))
        except Exception:
            verdicts.append(False)
            continue
        verdicts.append(judge(comparison.oracle, case.input, case.expected, actual, comparison.float_abs))
    return verdicts


# -- reading ----------------------------------------------------------------------------------------
def test_released_rows_read_with_their_json_tokens_and_big_integers() -> None:
    humaneval = _rows(HUMANEVAL)
    assert set(humaneval) == {"HumanEval/0", "HumanEval/2", "HumanEval/8", "HumanEval/32", "HumanEval/55"}
    plus = humaneval["HumanEval/0"]["plus_input"]
    assert plus[0][0][1] == math.inf and math.isnan(plus[1][0][0])
    assert humaneval["HumanEval/8"]["plus_input"][0][0][0] == 123456789012345678901234567890
    mbpp = _rows(MBPP)
    assert mbpp["Mbpp/62"]["plus_input"][0][0][1] == -math.inf
    assert len(mbpp) == 11


def test_gzipped_release_reads_the_same(tmp_path: Path) -> None:
    packed = tmp_path / "HumanEvalPlus.jsonl.gz"
    with gzip.open(packed, "wb") as handle:
        handle.write(HUMANEVAL.read_bytes())
    assert json.dumps(list(read_rows(packed)), sort_keys=True) == json.dumps(
        list(read_rows(HUMANEVAL)), sort_keys=True
    )


def test_a_row_without_computed_outputs_is_skipped_with_the_command_to_run() -> None:
    for path in (HUMANEVAL, MBPP):
        for row in read_rows(path):
            with pytest.raises(SkipRow, match="codegym tasks import evalplus"):
                task_from_row(row, _context())


def test_a_failed_recording_is_skipped_with_its_reason() -> None:
    row = dict(_rows(MBPP)["Mbpp/295"], **{RECORD_ERROR_FIELD: "input 2 of 4 (error): ZeroDivisionError"})
    with pytest.raises(SkipRow, match=r"could not be recorded: input 2 of 4 .*ZeroDivisionError"):
        task_from_row(row, _context())


def test_humaneval_plus_is_a_completion_task() -> None:
    row = _rows(HUMANEVAL)["HumanEval/8"]
    task = _task(HUMANEVAL, "HumanEval/8")
    assert task.name == task.task_id == "HumanEval/8"
    assert task.prompt == task.prefix == row["prompt"]
    assert task.reference_solution == row["prompt"] + row["canonical_solution"]
    assert task.solution_from_completion("    return 0, 1\n") == row["prompt"] + "    return 0, 1\n"
    assert task.entry_point == "sum_product" and not task.hidden_tests
    assert task.cases is not None and task.cases.kind == "call" and task.cases.function == "sum_product"
    assert len(task.cases) == 5 and task.metadata["base_cases"] == 3
    assert task.metadata["dataset"] == "HumanEval+"
    assert task.cases.cases[3].expected == (
        123456789012345678901234567890 - 98765432109876543210,
        -(123456789012345678901234567890 * 98765432109876543210),
    )
    assert task.cases.cases[4].expected == (8 * 10**40, 10**320)


def test_mbpp_plus_is_a_whole_program_task_stated_by_its_docstring() -> None:
    row = _rows(MBPP)["Mbpp/2"]
    task = _task(MBPP, "Mbpp/2")
    assert task.prefix == "" and task.entry_point == "similar_elements"
    assert task.reference_solution == row["prompt"] + row["canonical_solution"]
    assert task.prompt.startswith("Write a function to find the shared elements from the given two lists.\n")
    assert "assert set(similar_elements((3, 4, 5, 6),(5, 7, 4, 10))) == set((4, 5))" in task.prompt
    assert '"""' not in task.prompt and "`similar_elements`" in task.prompt
    assert task.metadata["dataset"] == "MBPP+" and task.cases is not None
    assert task.cases.comparison.oracle == "set"
    assert mbpp_statement("no docstring") == "no docstring"


def test_oracles_and_tolerances_follow_evalplus() -> None:
    expected = {
        "HumanEval/0": ("evalplus_equal", 0.0),
        "HumanEval/2": ("evalplus_equal", 1e-6),
        "HumanEval/32": ("poly_root", 1e-4),
        "Mbpp/2": ("set", 0.0),
        "Mbpp/124": ("evalplus_equal", 1e-4),
        "Mbpp/164": ("returns", 0.0),
        "Mbpp/295": ("equal_or_zero", 0.0),
        "Mbpp/558": ("mbpp_digit_distance", 0.0),
        "Mbpp/581": ("mbpp_surface_area", 0.0),
        "Mbpp/737": ("is_not_none", 0.0),
    }
    for task_id, (oracle, atol) in expected.items():
        task = _task(HUMANEVAL if task_id.startswith("HumanEval") else MBPP, task_id)
        assert task.cases is not None
        assert (task.cases.comparison.oracle, task.cases.comparison.float_abs) == (oracle, atol), task_id


# -- MBPP+ inputs, rebuilt as EvalPlus rebuilds them --------------------------------------------------
def test_mbpp_inputs_are_rebuilt_per_task() -> None:
    def inputs(task_id: str) -> list[tuple[Any, ...]]:
        task = _task(MBPP, task_id)
        assert task.cases is not None
        return [case.input for case in task.cases.cases]

    assert inputs("Mbpp/2")[0] == ((3, 4, 5, 6), (5, 7, 4, 10))
    assert inputs("Mbpp/115") == [([{}, {}, {}],), ([{1, 2}, {}],), ([{}, {3}],)]  # EvalPlus: empty -> {}
    assert inputs("Mbpp/124")[0] == (0.0, 1j) and inputs("Mbpp/124")[3] == (-1.5, 3 + 0j)
    assert inputs("Mbpp/580")[0] == ((4, 5, (7, 6, (2, 4)), 6, 8),)
    assert inputs("Mbpp/722")[0][0]["Cierra Vega"] == (6.2, 70)
    assert inputs("Mbpp/62")[2] == ([1.5, -math.inf, 3],)  # not rebuilt: stays a list


def test_an_input_evalplus_cannot_rebuild_names_the_row_and_field() -> None:
    row = dict(_rows(MBPP)["Mbpp/124"], plus_input=[["not a number", "1j"]])
    with pytest.raises(TaskPackError) as error:
        task_from_row(row, _context())
    message = str(error.value)
    assert "Mbpp/124" in message and "plus_input" in message and "MbppPlus.jsonl:1" in message


# -- time limits ------------------------------------------------------------------------------------
def test_each_input_gets_evalplus_time_limit() -> None:
    assert time_limits([0.001, 0.5, 2.0], {}) == [1.0, 2.0, 8.0]
    assert time_limits([0.001, 0.5], {"min_time_limit": 0.1, "gt_time_limit_factor": 2}) == [0.1, 1.0]
    row = _recorded(_rows(HUMANEVAL)["HumanEval/55"])
    row[REF_TIME_FIELD] = [0.0001] * 6 + [3.0]
    task = task_from_row(row, RowContext("p", "f", limits=Limits(timeout_s=10.0)))
    assert task.cases is not None
    assert [case.timeout_s for case in task.cases.cases] == [1.0] * 6 + [12.0]
    assert task.limits.timeout_s == pytest.approx(4 * (6 * 0.0001 + 3.0) + 2.0)  # the run fits them
    quick = dict(row, **{REF_TIME_FIELD: [0.0001] * 7})
    assert task_from_row(quick, RowContext("p", "f", limits=Limits(timeout_s=10.0))).limits.timeout_s == 10.0


@pytest.mark.parametrize(
    ("change", "field"),
    [
        ({"task_id": "HumanEval"}, "task_id"),
        ({"task_id": "Apps/3"}, "task_id"),
        ({"task_id": "Mbpp/x"}, "task_id"),
        ({"entry_point": "not an identifier"}, "entry_point"),
        ({"canonical_solution": None}, "canonical_solution"),
        ({"atol": -1}, "atol"),
        ({"atol": "0"}, "atol"),
        ({"base_input": {"a": 1}}, "base_input"),
        ({"plus_input": [3]}, "plus_input"),
        ({EXPECTED_FIELD: [1, 2]}, EXPECTED_FIELD),
        ({REF_TIME_FIELD: [-1.0] * 6}, REF_TIME_FIELD),
    ],
)
def test_bad_fields_name_file_task_and_field(change: dict[str, Any], field: str) -> None:
    row = _recorded(_rows(MBPP)["Mbpp/558"])
    row.update(change)
    with pytest.raises(TaskPackError) as error:
        task_from_row(row, _context())
    assert error.value.field == field and "MbppPlus.jsonl" in str(error.value)


def test_bad_time_options_are_errors() -> None:
    row = _recorded(_rows(MBPP)["Mbpp/558"])
    with pytest.raises(TaskPackError, match=r"options\.min_time_limit"):
        task_from_row(row, _context(min_time_limit=0))


def test_a_row_with_no_inputs_is_skipped() -> None:
    row = dict(_rows(MBPP)["Mbpp/558"], base_input=[], plus_input=[])
    with pytest.raises(SkipRow, match="no inputs"):
        task_from_row(row, _context())


# -- judging: the references pass their own answers, wrong programs do not ---------------------------
def test_every_reference_passes_its_recorded_answers() -> None:
    for path in (HUMANEVAL, MBPP):
        for task_id in _rows(path):
            task = _task(path, task_id)
            assert all(_passes(task, task.reference_solution)), task_id


def test_wrong_answers_fail() -> None:
    sum_product = _task(HUMANEVAL, "HumanEval/8")
    prompt = sum_product.prefix
    as_list = prompt + "    return [sum(numbers), __import__('math').prod(numbers)]\n"
    assert not any(_passes(sum_product, as_list))  # EvalPlus: a list is not the expected tuple
    off_by_one = prompt + "    return sum(numbers), __import__('math').prod(numbers) + 1\n"
    assert not any(_passes(sum_product, off_by_one))
    fib = _task(HUMANEVAL, "HumanEval/55")
    assert _passes(fib, fib.prefix + "    return 55 if n == 10 else -1\n") == [True] + [False] * 6
    check_str = _task(MBPP, "Mbpp/737")
    always = "def check_str(string):\n  return True\n"
    assert _passes(check_str, always) == [True, False, True, False, True]


def test_float_answers_get_evalplus_tolerance() -> None:
    truncate = _task(HUMANEVAL, "HumanEval/2")  # atol 1e-6
    assert all(_passes(truncate, truncate.prefix + "    return number - int(number) + 5e-7\n"))
    assert not any(_passes(truncate, truncate.prefix + "    return number - int(number) + 1e-5\n"))
    angle = _task(MBPP, "Mbpp/124")  # atol 1e-4
    assert all(_passes(angle, "import cmath\ndef angle_complex(a, b):\n  return cmath.phase(a + b) + 5e-5\n"))
    smallest = _task(MBPP, "Mbpp/62")  # atol 0: exact, except floats get 1e-6
    near = "def smallest_num(xs):\n  m = min(xs)\n  return m + 1e-9 if isinstance(m, float) else m\n"
    assert all(_passes(smallest, near))


def test_special_oracles_accept_other_valid_answers() -> None:
    find_zero = _task(HUMANEVAL, "HumanEval/32")
    newton = find_zero.prefix + (
        "    x = 10.0\n"
        "    for _ in range(200):\n"
        "        d = sum(i * c * x ** (i - 1) for i, c in enumerate(xs) if i)\n"
        "        x -= poly(xs, x) / d\n"
        "    return x\n"
    )
    answers = [_namespace(newton)["find_zero"](*case.input) for case in find_zero.cases.cases]
    assert answers[1] == pytest.approx(3.0) and find_zero.cases.cases[1].expected == pytest.approx(1.0)
    assert all(_passes(find_zero, newton))  # another root of the same polynomial
    assert not any(_passes(find_zero, find_zero.prefix + "    return 0.123\n"))
    assert all(
        _passes(_task(MBPP, "Mbpp/2"), "def similar_elements(a, b):\n  return sorted(set(a) & set(b))\n")
    )
    assert all(_passes(_task(MBPP, "Mbpp/164"), "def are_equivalent(a, b):\n  return 'anything'\n"))
    assert all(_passes(_task(MBPP, "Mbpp/295"), "def sum_div(n):\n  return 0\n"))
    assert all(
        _passes(
            _task(MBPP, "Mbpp/737"),
            "import re\ndef check_str(s):\n  return bool(re.match('[aeiouAEIOU]', s))\n",
        )
    )
    padded = (
        "def digit_distance_nums(a, b):\n"
        "  x, y = str(a), str(b)\n"
        "  w = max(len(x), len(y))\n"
        "  return sum(abs(int(p) - int(q)) for p, q in zip(x.zfill(w), y.zfill(w)))\n"
    )
    assert all(_passes(_task(MBPP, "Mbpp/558"), padded))
    pyramid = (
        "import math\n"
        "def surface_Area(b, h):\n"
        "  return round(b * b + 2 * b * math.sqrt((b / 2) ** 2 + h * h))\n"
    )
    assert all(_passes(_task(MBPP, "Mbpp/581"), pyramid))


# -- the oracles themselves -------------------------------------------------------------------------
def test_evalplus_equal_is_pythons_equality_with_nan_equal() -> None:
    assert judge("evalplus_equal", (), (1, 2), (1, 2), 0)
    assert not judge("evalplus_equal", (), (1, 2), [1, 2], 0)
    assert not judge("evalplus_equal", (), [1, 2], (1, 2), 0)
    assert judge("evalplus_equal", (), True, 1, 0) and judge("evalplus_equal", (), 2.0, 2, 0)
    assert judge("evalplus_equal", (), [math.nan, {"a": math.nan}], [math.nan, {"a": math.nan}], 0)
    assert not judge("evalplus_equal", (), {1, 2}, {1, 3}, 0)
    assert judge("evalplus_equal", (), {(1, 2): "x"}, {(1, 2): "x"}, 0)


def test_float_fallback_needs_the_same_type_and_length() -> None:
    assert judge("evalplus_equal", (), 1.0, 1.0 + 1e-7, 0)  # expected float: atol 1e-6
    assert not judge("evalplus_equal", (), 1.0, 1.0 + 1e-5, 0)
    assert judge("evalplus_equal", (), [1.0, 2.0], [1.0 + 1e-7, 2.0], 0)
    assert not judge("evalplus_equal", (), [1.0, 2.0], (1.0 + 1e-7, 2.0), 0)  # type differs
    assert not judge("evalplus_equal", (), [[1.0]], [[1.0 + 1e-7]], 0)  # nested: no default tolerance
    assert judge("evalplus_equal", (), [[1.0]], [[1.0 + 1e-7]], 1e-6)  # but the task's atol applies
    assert not judge("evalplus_equal", (), 3, 3.0000001, 1e-4)  # int expected, float given
    assert judge("evalplus_equal", (), 1e9, 1e9 + 50, 0)  # within rtol 1e-7 * |expected|
    assert judge("evalplus_equal", (), math.inf, math.inf, 0)
    assert not judge("evalplus_equal", (), 1.0, math.nan, 0)
    assert not judge("evalplus_equal", (), ["a", 1.0], ["b", 1.0], 1e-4)


def test_is_not_none_compares_the_references_none_ness() -> None:
    assert judge("is_not_none", ("x",), True, object(), 0)
    assert not judge("is_not_none", ("x",), True, None, 0)
    assert judge("is_not_none", ("x",), False, None, 0)
    assert not judge("is_not_none", ("x",), False, "match", 0)
    assert judge("is_not_none", ("x",), False, False, 0) and not judge("is_not_none", ("x",), True, False, 0)


def test_poly_root_and_odd_answers() -> None:
    assert judge("poly_root", ([-6, 11, -6, 1],), 1.0, 2.00001, 1e-4)
    assert not judge("poly_root", ([-6, 11, -6, 1],), 1.0, 2.5, 1e-4)
    assert not judge("poly_root", ([1, 2],), -0.5, "x", 1e-4)
    assert not judge("set", (), [1], 5, 0)  # not iterable: fails, never raises
    assert judge("returns", (), 1, None, 0)


class _Sneaky(int):
    def __eq__(self, other: object) -> bool:  # a program's class: never consulted
        return True

    __hash__ = int.__hash__


def test_answers_are_judged_as_builtin_data() -> None:
    assert not judge("evalplus_equal", (), 5, _Sneaky(4), 0)
    assert judge("evalplus_equal", (), 4, _Sneaky(4), 0)
    assert type(to_builtin([_Sneaky(1), (2,)])[0]) is int and to_builtin(((1,),)) == ((1,),)
    assert not judge("evalplus_equal", (), 1, object(), 0)
    with pytest.raises(TypeError):
        to_builtin(object())


# -- as a pack ----------------------------------------------------------------------------------------
def test_a_pack_folder_of_imported_rows_loads(tmp_path: Path) -> None:
    pack = tmp_path / "mbppplus"
    pack.mkdir()
    rows = [_recorded(row) for row in read_rows(MBPP)]
    (pack / "MbppPlus.jsonl").write_text("".join(json.dumps(row) + "\n" for row in rows), encoding="utf-8")
    (pack / "pack.yaml").write_text(
        "name: mbppplus\nversion: '0.2.0'\nformat: evalplus\ndata: MbppPlus.jsonl\n", encoding="utf-8"
    )
    loaded = load_format_pack(
        pack,
        {"name": "mbppplus", "version": "0.2.0", "format": "evalplus", "data": "MbppPlus.jsonl"},
        Limits(),
    )
    assert len(loaded) == 11 and loaded.get("Mbpp/737").cases is not None
    assert get_format("evalplus").prepare_rows is not None
