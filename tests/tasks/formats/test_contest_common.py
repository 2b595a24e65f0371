"""What the competitive-programming readers share: Python 3 detection, harness imports, options."""

from __future__ import annotations

import pytest

from codegym.tasks.cases import Comparison
from codegym.tasks.errors import TaskPackError
from codegym.tasks.formats.base import RowContext
from codegym.tasks.formats.contest import (
    case_text,
    case_timeout,
    comparison_for,
    first_python3,
    implicit_imports,
    python3_problem,
    with_typing_imports,
)


@pytest.mark.parametrize(
    "source",
    [
        "print 'hi'\n",
        "n = int(raw_input())\nprint(n)\n",
        "for i in xrange(3):\n    print(i)\n",
        "d = {}\nfor k, v in d.iteritems():\n    pass\n",
        "import sys\nprint(sys.maxint)\n",
        "exec 'x = 1'\n",
        "",
    ],
)
def test_python2_programs_are_told_apart(source: str) -> None:
    assert python3_problem(source) is not None


@pytest.mark.parametrize(
    "source",
    [
        "print(int(input()) * 2)\n",
        "raw_input = input\nprint(raw_input())\n",  # a Python 3 program may bind the old names itself
        "from functools import reduce\nprint(reduce(lambda a, b: a + b, [1, 2]))\n",
        "def f(long):\n    return long\n",
        "import re\nprint(re.sub('\\d', 'x', 'a1'))\n",  # an invalid escape warns, it is no error
    ],
)
def test_python3_programs_pass(source: str) -> None:
    assert python3_problem(source) is None


def test_first_python3_counts_what_it_passed_over() -> None:
    assert first_python3(["print 1", 7, "print(1)", "print(2)"]) == ("print(1)", 2)
    assert first_python3(["print 1"]) == ("", 1)
    assert first_python3([]) == ("", 0)


def test_implicit_imports_add_only_what_the_program_uses_unbound() -> None:
    available = {
        "List": "from typing import List",
        "deque": "from collections import deque",
        "math": "import math",
    }
    source = "def f(xs: List[int]):\n    q = deque(xs)\n    return q\n"
    assert implicit_imports(source, available) == "from typing import List\nfrom collections import deque\n"
    assert implicit_imports("import math\nprint(math.pi)\n", available) == ""
    assert implicit_imports("print(math.pi", available) == ""  # unparsable: nothing to add


def test_starter_code_gets_its_typing_import_once() -> None:
    starter = "class Solution:\n    def f(self, nums: List[int]) -> Optional[int]:\n        "
    shown = with_typing_imports(starter)
    assert shown.startswith("from typing import List, Optional\n")
    assert with_typing_imports(shown) == shown
    assert with_typing_imports("def f(x):\n\t") == "def f(x):\n\t"


def test_case_text_joins_lists_of_lines_and_rejects_other_shapes() -> None:
    context = RowContext("p", "rows.jsonl", line=3)
    assert case_text(["1 2", "3"], context, task="t", field="f") == "1 2\n3"
    with pytest.raises(TaskPackError) as error:
        case_text(5, context, task="t", field="input_output")
    assert (error.value.task, error.value.field, error.value.file) == ("t", "input_output", "rows.jsonl:3")


def test_options_override_the_comparison_and_pick_checker_tasks() -> None:
    context = RowContext(
        "p",
        "rows.jsonl",
        checker="def check(i, e, a):\n    return True\n",
        options={"float_abs": 0.5, "checker_for": ["a"]},
    )
    base = Comparison(match="tokens")
    judged = comparison_for(context, base, task="a")
    assert (judged.match, judged.float_abs, judged.checker) == ("tokens", 0.5, context.checker)
    assert comparison_for(context, base, task="b").checker is None
    everyone = RowContext("p", "rows.jsonl", checker="def check(i, e, a):\n    return 1\n")
    assert comparison_for(everyone, base, task="b").checker == everyone.checker


@pytest.mark.parametrize(
    ("options", "field"),
    [
        ({"match": "bytes"}, "options"),
        ({"float_rel": -1}, "options"),
        ({"checker_for": "a"}, "options.checker_for"),
    ],
)
def test_bad_options_name_the_field(options: dict, field: str) -> None:
    context = RowContext("p", "rows.jsonl", options=options)
    with pytest.raises(TaskPackError) as error:
        comparison_for(context, Comparison(), task="t")
    assert error.value.field == field and error.value.task == "t"


def test_case_timeout_option() -> None:
    assert case_timeout(RowContext("p", "f"), 4.0, task="t") == 4.0
    assert case_timeout(RowContext("p", "f", options={"case_timeout_s": 2}), 4.0, task="t") == 2.0
    with pytest.raises(TaskPackError, match="> 0"):
        case_timeout(RowContext("p", "f", options={"case_timeout_s": 0}), 4.0, task="t")
