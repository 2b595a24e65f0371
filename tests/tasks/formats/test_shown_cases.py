"""`every_case_shown`: which input/output rows would be judged only on what their prompt shows."""

from __future__ import annotations

import time

import pytest

from codegym.tasks.cases import Case, CaseSuite
from codegym.tasks.formats.base import every_case_shown, shown_case_indexes

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


def call(function: str, *pairs: tuple[tuple, object]) -> CaseSuite:
    return CaseSuite(kind="call", cases=tuple(Case(i, o) for i, o in pairs), function=function)


UNIQ = call("find_uniq", (([1, 1, 1, 2, 1, 1],), [2]), (([0, 0, 0.55, 0, 0],), [0.55]))
TWO_SUM = call(
    "two_sum", (([2, 7, 11, 15], 9), [[0, 1]]), (([3, 2, 4], 6), [[1, 2]]), (([3, 3], 6), [[0, 1]])
)
LEETCODE_TWO_SUM = (
    "Given an array of integers nums and an integer target, return indices of the two numbers.\n\n"
    "Example 1:\nInput: nums = [2,7,11,15], target = 9\nOutput: [0,1]\n\n"
    "Example 2:\nInput: nums = [3,2,4], target = 6\nOutput: [1,2]\n\n"
    "Example 3:\nInput: nums = [3,3], target = 6\nOutput: [0,1]\n"
)


@pytest.mark.parametrize(
    "text",
    [
        "```python\nfind_uniq([ 1, 1, 1, 2, 1, 1 ]) == 2\nfind_uniq([ 0, 0, 0.55, 0, 0 ]) == 0.55\n```",
        "findUniq([1,1,1,2,1,1]) === 2;\nfindUniq([0,0,0.55,0,0]) === 0.55;",
        ">>> find_uniq([1, 1, 1, 2, 1, 1])\n2\n>>> find_uniq((0, 0, 0.55, 0, 0))\n0.55\n",
        "Test.assert_equals(find_uniq([ 1, 1, 1, 2, 1, 1 ]), 2)\n"
        "Test.assert_equals(find_uniq([ 0, 0, 0.55, 0, 0 ]), 0.55)",
        "Examples:\n* `[ 1, 1, 1, 2, 1, 1 ]` -> `2`\n* `[0, 0, 0.55, 0, 0]` ➞ `0.55`\n",
    ],
    ids=["codewars-spaced", "javascript", "doctest", "assert-equals", "arrow-lines"],
)
def test_a_call_example_is_shown_whatever_the_spelling_of_its_values(text: str) -> None:
    """Red team 14 P3: the statement's values, not their text, decide (a list spaced as Codewars or
    LeetCode print it, a tuple for a list, JavaScript's names)."""
    assert every_case_shown(text, UNIQ, None)


def test_leetcode_input_output_examples_are_shown() -> None:
    assert every_case_shown(LEETCODE_TWO_SUM, TWO_SUM, None)
    js = LEETCODE_TWO_SUM.replace("[0,1]", "[0, 1]").replace("target = 9", "target=9")
    assert every_case_shown(js, TWO_SUM, None)
    assert not every_case_shown(LEETCODE_TWO_SUM.replace("[1,2]\n", "[2,1]\n"), TWO_SUM, None)


def test_a_call_counts_only_with_its_answer_in_the_same_example() -> None:
    """False-flag round 14 Q7a: small numbers of the prose ("Example 2", "2^31 - 1") or an answer equal
    to its argument are no worked example; the cases 0, 1 and 2 are never shown."""
    text = (
        "Given a non-negative integer x, return the square root of x rounded down.\n\n"
        "Example 1:\nInput: x = 4\nOutput: 2\n\nExample 2:\nInput: x = 8\nOutput: 2\n"
        "Explanation: the square root of 8 is 2.82842..., rounded down 2.\n\n"
        "Constraints: 0 <= x <= 2^31 - 1\n"
    )
    cases = call("mySqrt", ((4,), 2), ((8,), 2), ((0,), 0), ((1,), 1), ((2,), 1))
    assert shown_case_indexes(text, cases, None) == [0, 1]
    prose = call("f", ((3,), 3), (("a",), "b"))
    assert shown_case_indexes("f(3) is called once; 3 ... 'a' then 'b'", prose, None) == []


def test_one_examples_output_and_the_next_examples_input_are_no_example() -> None:
    """False-flag round 14 Q7b: paper (Sample Output 1) then scissors (Sample Input 2) is not a case."""
    text = (
        "Print the hand that beats S.\n\nSample Input 1\n\nrock\n\nSample Output 1\n\npaper\n\n"
        "Sample Input 2\n\nscissors\n\nSample Output 2\n\nrock\n"
    )
    cases = stdio(("rock\n", "paper\n"), ("scissors\n", "rock\n"), ("paper\n", "scissors\n"))
    assert shown_case_indexes(text, cases, None) == [0, 1]
    assert shown_case_indexes(text, stdio(("rock\n", "rock\n")), None) == []  # Sample Output 2's rock


BLANK_LINES = (
    "Each test case is preceded by an empty line. Print the sum of each test case.\n\n"
    "-----Examples-----\nInput\n2\n\n3\n1 2 3\n\n2\n5 5\n\nOutput\n6\n10\n\n"
    "Input\n1\n\n4\n1 1 1 1   \n\nOutput\n4\n"
)


def test_an_example_with_blank_lines_is_shown_as_the_statement_prints_it() -> None:
    """Red team 15 R2: blank lines (and trailing spaces) count alike in the case and the statement."""
    cases = stdio(("2\n\n3\n1 2 3\n\n2\n5 5\n", "6\n10\n"), ("1\n\n4\n1 1 1 1\n", "4\n"))
    assert shown_case_indexes(BLANK_LINES, cases, None) == [0, 1]
    packed = stdio(("2\n3\n1 2 3\n2\n5 5\n", "6\n10\n"))  # the same example without its blank lines
    assert every_case_shown(BLANK_LINES, packed, None)
    answers = "Example\nInput\n1\n\nOutput\nYES\n\nNO\n"
    assert every_case_shown(answers, stdio(("1\n", "YES\n\nNO\n")), None)


def test_skipping_blank_lines_never_joins_two_examples() -> None:
    assert not every_case_shown(BLANK_LINES, stdio(("2\n5 5\n", "4\n")), None)  # 2 5 5 is not example 2's
    assert not every_case_shown(BLANK_LINES, stdio(("5 5\n1\n", "4\n")), None)  # across Output/Input
    assert not every_case_shown(BLANK_LINES, stdio(("2\n\n3\n1 2 3\n\n2\n5 5\n", "6\n10\n4\n")), None)


def test_a_long_output_block_is_shown() -> None:
    """The window bounds where the output starts, not where it ends."""
    answers = "".join(f"{n}\n" for n in range(30))
    text = f"Example\nInput\n30\n\nOutput\n{answers}"
    assert every_case_shown(text, stdio(("30\n", answers)), None)


SQUARE = call("square", ((3,), 9), ((10,), 100), ((7,), 49))


@pytest.mark.parametrize(
    "body",
    [
        "square(3) ==> 9\nsquare(10) ==> 100\nsquare(7) ==> 49\n",
        "square(3) ===> 9\nsquare(10) ===> 100\nsquare(7) ===> 49\n",
        "square(3); // => 9\nsquare(10); // => 100\nsquare(7); // => 49\n",
        "square(3); // 9\nsquare(10); // 100\nsquare(7); // 49\n",
        "print(square(3))  # 9\nprint(square(10))  # 100\nprint(square(7))  # 49\n",
        "square(3) is equal to 9\nsquare(10) is equal to 100\nsquare(7) should be equal to 49\n",
        "| n | square(n) |\n|---|---|\n| 3 | 9 |\n| 10 | 100 |\n| `7` | `49` |\n",
        "Input | Output\n:--- | ---:\n3 | 9\n10 | 100\n7 | 49\n",
        "3 ==> 9\n10 ===> 100\n7 => 49\n",
    ],
    ids=[
        "==>",
        "===>",
        "; // =>",
        "; // answer",
        "print # answer",
        "is equal to",
        "md table",
        "bare table",
        "arrows",
    ],
)
def test_codewars_spellings_of_a_call_example_are_shown(body: str) -> None:
    """Red team 15 R3."""
    text = f"Write a function `square` that returns the square of n.\n\nExamples:\n```\n{body}```\n"
    assert shown_case_indexes(text, SQUARE, None) == [0, 1, 2]


def test_a_parenthesised_left_side_is_also_an_argument_list() -> None:
    text = "Examples:\n(3, 4) -> 7\n(10, 5) -> 15\n"
    assert every_case_shown(text, call("add", ((3, 4), 7), ((10, 5), 15)), None)
    assert every_case_shown(text, call("add_pair", (((3, 4),), 7), (((10, 5),), 15)), None)


@pytest.mark.parametrize(
    "text",
    [
        "square(3); square(4); 9 and 16",  # a `;` ends the example
        "print(square(3)) prints a number; 9 is one",
        "square(3) is called first; the answer is 9",
        "| n | note |\n|---|---|\n| 3 | odd |\n| 4 | 9 |\n",  # 9 is in another row
        "| 3 | 9 |\n| 4 | 16 |\n",  # no header and delimiter row: no table
        "(3) is odd -> 9 is odd",
    ],
)
def test_the_new_spellings_still_need_one_example(text: str) -> None:
    assert shown_case_indexes(text, call("square", ((3,), 9)), None) == []


@pytest.mark.parametrize(
    "text",
    [
        "Input: 1\n" * 8000 + "Output: 2\n",
        "f(" * 8000,
        "f(" + "[" * 8000,
        "f(1) == (" * 4000,
        "Input: [1,\n" * 4000 + "Output: [2]\n",
        "| a | b |\n|---|---|\n" + "| [1, | 2 |\n" * 4000,
        "| a | b |\n" + "|---|---|\n" * 8000,
        "(1, 2) -> [\n" * 4000,
        "Write f.\n" + " " * 40000 + "x\n",
        "Write f.\n|-|" + " " * 40000 + "x\n",
        "Write f.\n|" + " -" * 20000 + " x\n",
    ],
    ids=[
        "labels",
        "calls",
        "brackets",
        "open-answers",
        "open-labels",
        "table",
        "delimiters",
        "arrows",
        "blanks",
        "delimiter-then-blanks",
        "spaced-dashes",
    ],
)
def test_a_pathological_call_statement_is_read_in_well_under_a_second(text: str) -> None:
    """Red team 15 R5: 8,000 `Input:` labels took 11 s, `f(` x 8,000 2.4 s; red team 17 T5: a line of
    40,000 blanks took 18 s in the table reader."""
    cases = call("f", *(((n,), n + 1) for n in range(300)))
    started = time.perf_counter()
    every_case_shown(text, cases, None)
    assert time.perf_counter() - started < 0.5


@pytest.mark.parametrize(
    "text",
    [
        "Input\n" + "1\n" * 5000 + "Output\n2\n",
        "Input\n" + "1\n\n" * 20000 + "Output\n",
        "1\n" * 5000 + "2\n" * 5000,
    ],
    ids=["repeated", "blank-separated", "unlabelled"],
)
def test_a_pathological_stdio_statement_is_read_in_well_under_a_second(text: str) -> None:
    """Red team 15 R5: the statement was read again for every case (300 cases x 5,000 lines: 1.1 s)."""
    cases = stdio(*((f"1\n{n}\n" if n % 2 else "1\n", "2\n") for n in range(300)))
    started = time.perf_counter()
    every_case_shown(text, cases, None)
    assert time.perf_counter() - started < 0.5
