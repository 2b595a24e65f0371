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


def test_a_number_that_merely_occurs_in_the_text_is_not_an_example() -> None:
    text = "Print Yes if N is prime.\n\nExample 1\nInput:\n7\nOutput:\nYes\n"
    assert not every_case_shown(text, stdio(("1\n", "Yes\n")), None)  # "Example 1", then "Yes"
    assert every_case_shown(text, stdio(("7\n", "Yes\n")), None)


def test_a_labelled_one_line_example_is_an_example() -> None:
    assert every_case_shown("Examples:\n  input: 16\n  output: 7\n", stdio(("16\n", "7\n")), None)
    assert not every_case_shown("Examples:\n  input: 16\n  output: 7\n", stdio(("16\n", "8\n")), None)


def test_a_calls_arguments_then_its_answer_in_the_statement_is_an_example() -> None:
    call = CaseSuite(kind="call", cases=(Case((16,), [7]), Case((942,), [6])), function="digital_root")
    text = "## Examples\n    digital_root(16)\n=> 7\n    digital_root(942)\n=> 6\n"
    assert every_case_shown(text, call, None)  # the answers are wrapped, as Codewars publishes them
    hidden = CaseSuite(kind="call", cases=(*call.cases, Case((1000,), [1])), function="digital_root")
    assert not every_case_shown(text, hidden, None)
