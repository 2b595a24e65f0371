"""`every_case_shown`: which input/output rows would be judged only on what their prompt shows."""

from __future__ import annotations

from codegym.tasks.cases import Case, CaseSuite
from codegym.tasks.formats.base import every_case_shown

STATEMENT = "Print the sum.\n\nExample\nInput:\n3\n1  2 3\nOutput:\n6\n\nNote: 1 + 2 + 3 = 6."


def stdio(*pairs: tuple[str, str]) -> CaseSuite:
    return CaseSuite(kind="stdio", cases=tuple(Case(i, o) for i, o in pairs))


def test_a_worked_example_of_the_statement_is_shown_whatever_its_whitespace() -> None:
    assert every_case_shown(STATEMENT, stdio(("3\n1 2 3\n", "6\n")), None)


def test_one_case_the_prompt_does_not_show_is_enough_to_keep_a_row() -> None:
    assert not every_case_shown(STATEMENT, stdio(("3\n1 2 3\n", "6\n"), ("2\n4 4\n", "8\n")), None)


def test_the_output_must_follow_its_input_as_whole_tokens() -> None:
    assert not every_case_shown("Output: 6 ... Input: 3 1 2 3", stdio(("3\n1 2 3\n", "6\n")), None)
    assert not every_case_shown("Input: 13 1 2 3 Output: 66", stdio(("3\n1 2 3\n", "6\n")), None)


def test_visible_cases_count_as_shown_for_both_kinds() -> None:
    call = CaseSuite(kind="call", cases=(Case((1, 2), 3),), function="add")
    assert every_case_shown("Add two numbers.", call, call)
    other = CaseSuite(kind="call", cases=(Case((1, 2), 3), Case((5, 5), 10)), function="add")
    assert not every_case_shown("Add two numbers.", other, call)
    assert every_case_shown("no examples here", stdio(("1\n", "2\n")), stdio(("1\n", "2\n")))
