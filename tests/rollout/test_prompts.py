"""Prompts and retry feedback for every kind of task: test files, stdin/stdout and call cases."""

from __future__ import annotations

import pytest

from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.rollout.feedback import feedback_message
from codegym.rollout.prompts import PromptBuilder, PromptConfig
from codegym.sandbox.local import LocalBackend
from codegym.tasks import TaskRegistry
from codegym.tasks.cases import Case, CaseSuite
from codegym.tasks.formats.base import RowContext, case_task

SECRET = "expected-7f3a"


def stdio_task():
    hidden = CaseSuite("stdio", (Case("1 2\n", "3\n"), Case("40 2\n", SECRET + "\n")))
    visible = CaseSuite("stdio", (Case("1 2\n", "3\n"),))
    return case_task(
        context=RowContext(pack="t", file="x"),
        task_id="add",
        statement="Print the sum of two integers.",
        cases=hidden,
        visible=visible,
        reference="a, b = map(int, input().split())\nprint(a + b)\n",
    )


def call_task():
    cases = CaseSuite("call", (Case((2, 3), 5), Case((40, 2), 42)), function="Solution.add")
    return case_task(
        context=RowContext(pack="t", file="x"),
        task_id="add_call",
        statement="Add two numbers.",
        cases=cases,
        visible=CaseSuite("call", cases.cases[:1], function="Solution.add"),
        starter_code="class Solution:\n    def add(self, a: int, b: int) -> int:\n",
    )


@pytest.mark.parametrize("style", ["chat", "completion"])
def test_a_stdio_prompt_states_the_contract_and_shows_only_the_public_examples(style: str) -> None:
    prompt = PromptBuilder(PromptConfig(style=style)).build(stdio_task())
    text = prompt.text if style == "completion" else prompt.messages[-1]["content"]
    assert "standard input" in text and "standard output" in text
    assert "Input:" in text and "1 2" in text and "Output:" in text
    assert SECRET not in text  # a hidden case's answer never reaches a prompt


def test_a_call_prompt_shows_the_starter_and_the_call_examples() -> None:
    text = PromptBuilder(PromptConfig(style="chat")).build(call_task()).messages[-1]["content"]
    assert "class Solution" in text and "method `add` of class `Solution`" in text
    assert "`Solution.add(2, 3)` returns `5`" in text


def test_without_visible_tests_no_examples_are_shown() -> None:
    text = PromptBuilder(PromptConfig(style="chat", include_visible_tests=False)).build(stdio_task())
    assert "Input:" not in text.messages[-1]["content"]


def test_an_mbpp_prompt_shows_its_tests_once() -> None:
    task = next(iter(TaskRegistry().load("mbpp_mini").tasks.values()))
    text = PromptBuilder(PromptConfig(style="chat")).build(task).messages[-1]["content"]
    first_assert = next(iter(task.visible_tests.files.values())).split("assert ", 1)[1].split("\n")[0]
    assert text.count(first_assert) == 1


def test_retry_feedback_on_a_case_task_never_shows_a_hidden_answer() -> None:
    task = stdio_task()
    wrong = "a, b = map(int, input().split())\nprint(a * b)\n"
    with LocalBackend(workers=1) as backend:
        scored = RewardJudge(backend, RewardConfig()).score_many([(task, wrong, None)])[0]
    assert scored.result is not None and not scored.breakdown.passed
    message = feedback_message(scored.breakdown, scored.result, style="chat")
    assert message and "case_0" in message and "wrong answer" in message
    assert SECRET not in message


def shout_task():
    from codegym.tasks.model import Task, TestSuite

    hidden = (
        "import pytest\n\nfrom solution import shout\n\n"
        f"def test_hidden_value():\n    assert shout('x') == '{SECRET}'\n\n"
        "def test_hidden_error():\n    assert shout('boom') == 'BOOM'\n\n"
        "def test_hidden_own_error():\n    assert shout('own') == 'OWN'\n\n"
        f"@pytest.mark.parametrize('text, expected', [('q', '{SECRET}')])\n"
        "def test_cases(text, expected):\n    assert shout(text) == expected\n"
    )
    visible = "from solution import shout\n\ndef test_visible():\n    assert shout('hi') == 'HI'\n"
    return Task(
        pack="t",
        name="shout",
        prompt="Write shout(text).",
        solution_path="solution.py",
        reference_solution="def shout(text):\n    return text.upper()\n",
        hidden_tests=TestSuite({"test_hidden.py": hidden}),
        visible_tests=TestSuite({"test_visible.py": visible}),
        entry_point="shout",
    )


def test_retry_feedback_never_shows_a_hidden_tests_expected_value() -> None:
    # the first attempt makes the failures show its inputs: had the feedback shown `actual !=
    # expected`, the second attempt could be a table of the hidden tests' answers
    probe = (
        "class SpellItOut(Exception):\n    pass\n\n"
        "def shout(text):\n"
        "    if text == 'boom':\n"
        "        raise ValueError('no shouting at ' + repr(text))\n"
        "    if text == 'own':\n"
        "        raise SpellItOut(text)\n"
        "    return 'IN=' + repr(text)\n"
    )
    with LocalBackend(workers=1) as backend:
        scored = RewardJudge(backend, RewardConfig()).score_many([(shout_task(), probe, None)])[0]
    assert scored.result is not None and not scored.breakdown.passed
    message = feedback_message(scored.breakdown, scored.result, style="chat")
    assert SECRET not in message  # neither the failed assert's nor the test's own call's values
    assert "test_hidden_value failed: AssertionError (a hidden test's values are not shown)" in message
    # the program's own exception: a builtin type only (it could carry what a test sent it, and a
    # class of its own can be named anything), and none of the frames it reports
    assert "test_hidden_error failed: ValueError (a hidden test's values are not shown)" in message
    assert "test_hidden_own_error failed: an exception (" in message and "SpellItOut" not in message
    assert "solution.py" not in message.split("(visible)")[0]
    # parametrized cases by number: pytest's ids hold the parameters
    assert "test_cases[case 1] failed" in message
    assert "test_visible (visible) failed: AssertionError: \"IN='hi'\" != 'HI'" in message
