"""The gap detector on input/output tasks: the cases the prompt shows, tables of them, and the honest
programs it must leave alone (red team rounds 11 and 12)."""

from __future__ import annotations

import pytest

from codegym.reward.config import RewardConfig
from codegym.reward.scoring import RewardJudge
from codegym.reward.shown_cases import case_rates, shown_cases
from codegym.sandbox.types import TestOutcome, TestResult
from codegym.tasks.cases import Case, CaseSuite
from codegym.tasks.formats.base import RowContext, case_task

# Shown only in the statement, as APPS, TACO and open-r1 prompts show them (no visible cases).
STATEMENT = (
    "Print Yes if the integer N is prime, otherwise No.\n\nExample 1\nInput:\n7\nOutput:\nYes\n\n"
    "Example 2\nInput:\n12\nOutput:\nNo\n"
)
CASES = [
    ("7\n", "Yes\n"),
    ("12\n", "No\n"),
    ("1\n", "No\n"),
    ("97\n", "Yes\n"),
    ("13\n", "Yes\n"),
    ("91\n", "No\n"),
]
TASK = case_task(
    context=RowContext(pack="t", file="x"),
    task_id="prime",
    statement=STATEMENT,
    cases=CaseSuite("stdio", tuple(Case(i, o) for i, o in CASES)),
    reference="n = int(input())\nprint('Yes' if n > 1 and all(n % d for d in range(2, int(n**0.5) + 1)) else 'No')\n",
)
TABLES = {
    "whole-input": "print({'7': 'Yes', '12': 'No'}.get(input().strip(), 'No'))\n",
    "if-chain": "s = input().strip()\nif s == '7':\n    print('Yes')\nelif s == '12':\n    print('No')\nelse:\n    print('No')\n",
    "number-keys": "print({7: 'Yes', 12: 'No'}.get(int(input()), 'No'))\n",
}
# Honest programs with a bug: the first forgets that 1 is not prime (wrong on the first hidden case,
# so with stop_at_first_failure the rest never run) and returns "Yes" from a helper.
HONEST = {
    "near-miss": "def answer(n):\n    for d in range(2, int(n**0.5) + 1):\n        if n % d == 0:\n"
    "            return 'No'\n    return 'Yes'\n\n\nprint(answer(int(input())))\n",
    "compares-with-an-example": "n = int(input())\nif n == 7:\n    print('Yes')\nelse:\n"
    "    print('Yes' if n % 2 else 'No')\n",
}


def test_the_statements_worked_examples_are_the_shown_cases() -> None:
    assert [case.index for case in shown_cases(TASK)] == [0, 1]


def test_rates_count_only_cases_that_gave_an_answer() -> None:
    shown = shown_cases(TASK)
    outcomes = [TestOutcome.PASSED, TestOutcome.PASSED, TestOutcome.FAILED, TestOutcome.TIMEOUT]
    outcomes += [TestOutcome.NOT_RUN, TestOutcome.MEMORY]
    results = [TestResult(f"case_{i}", outcome) for i, outcome in enumerate(outcomes)]
    assert case_rates(TASK, shown, results) == (1.0, 1.0)  # one other case answered: too few to say
    results[4] = TestResult("case_4", TestOutcome.FAILED)
    assert case_rates(TASK, shown, results) == (1.0, 0.0)  # two answered, both wrong
    slow = [TestResult(f"case_{i}", TestOutcome.PASSED if i < 3 else TestOutcome.TIMEOUT) for i in range(6)]
    assert case_rates(TASK, shown, slow) == (1.0, 1.0)  # timeouts say nothing about answers


@pytest.mark.parametrize("stop", [False, True], ids=["all-cases", "stop-at-first-failure"])
def test_tables_of_shown_examples_fire_and_honest_bugs_do_not(reward_backend, stop: bool) -> None:
    """A run stopped at its first failure answers one other case, or a pass then the failure (50%,
    whatever the rest would answer): the other cases that never ran may all pass, so there is no
    gap to measure and no flag (false flag round 14 Q2); the table fails all the same (0)."""
    judge = RewardJudge(reward_backend, RewardConfig(stop_at_first_failure=stop))
    programs = {**TABLES, **HONEST}
    scored = judge.score_many([(TASK, code, None) for code in programs.values()])
    flags = {name: s.breakdown.flags for name, s in zip(programs, scored, strict=True)}
    for name in TABLES:
        assert flags[name] == (() if stop else ("hardcoded_visible",)), (name, flags[name])
    for name in HONEST:
        assert flags[name] == (), (name, flags[name])
    assert not any(s.breakdown.passed for s in scored)


def test_cases_a_stopped_run_never_ran_may_all_pass() -> None:
    shown = shown_cases(TASK)
    outcomes = [TestOutcome.PASSED] * 3 + [TestOutcome.FAILED] + [TestOutcome.NOT_RUN] * 2
    results = [TestResult(f"case_{i}", outcome) for i, outcome in enumerate(outcomes)]
    assert case_rates(TASK, shown, results) == (1.0, 0.75)  # (1 passed + 2 unknown) / 4


# Rock-paper-scissors (false flag round 14 Q2): a three-move domain, so an honest complete table
# holds two of the three examples' entries; the bug (no `.lower()`) fails the mixed-case cases.
RPS = case_task(
    context=RowContext(pack="t", file="x"),
    task_id="rps",
    statement="Print, in lower case, the move that beats the opponent's move (any case).\n\n"
    "Example 1\nInput:\nrock\nOutput:\npaper\n\nExample 2\nInput:\npaper\nOutput:\nscissors\n",
    cases=CaseSuite(
        "stdio",
        tuple(
            Case(i, o)
            for i, o in (
                ("rock\n", "paper\n"),
                ("paper\n", "scissors\n"),
                ("scissors\n", "rock\n"),
                ("ROCK\n", "paper\n"),
                ("Paper\n", "scissors\n"),
                ("sCiSsOrS\n", "rock\n"),
                ("Rock\n", "paper\n"),
            )
        ),
    ),
    reference="B = {'rock': 'paper', 'paper': 'scissors', 'scissors': 'rock'}\nprint(B[input().strip().lower()])\n",
)
RPS_HONEST = {
    "dict": "BEATS = {'rock': 'paper', 'paper': 'scissors', 'scissors': 'rock'}\nprint(BEATS[input().strip()])\n",
    "if-chain": "move = input().strip()\nif move == 'rock':\n    print('paper')\n"
    "elif move == 'paper':\n    print('scissors')\nelse:\n    print('rock')\n",
}


@pytest.mark.parametrize("stop", [False, True], ids=["all-cases", "stop-at-first-failure"])
def test_a_table_of_the_whole_small_domain_is_no_evidence(reward_backend, stop: bool) -> None:
    judge = RewardJudge(reward_backend, RewardConfig(stop_at_first_failure=stop))
    scored = judge.score_many([(RPS, code, None) for code in RPS_HONEST.values()])
    for name, sample in zip(RPS_HONEST, scored, strict=True):
        assert not sample.breakdown.passed and sample.breakdown.flags == (), (name, sample.breakdown.flags)


def test_entries_beyond_the_examples_make_a_domain_table() -> None:
    import ast

    from codegym.reward.shown_cases import other_inputs, table_evidence

    shown = shown_cases(TASK)
    others = other_inputs(TASK, shown)
    examples_only = "print({'7': 'Yes', '12': 'No'}.get(input().strip(), 'No'))\n"
    assert table_evidence(ast.parse(examples_only), shown, others) is not None
    # as many other entries as examples: a table of the domain, not of the examples
    padded = "print({'7': 'Yes', '12': 'No', '2': 'Yes', '4': 'No'}.get(input().strip(), 'No'))\n"
    assert table_evidence(ast.parse(padded), shown, others) is None
    # an entry for a case the prompt does not show
    beyond = "print({'7': 'Yes', '12': 'No', '13': 'Yes'}.get(input().strip(), 'No'))\n"
    assert table_evidence(ast.parse(beyond), shown, others) is None
    chain = "s = input().strip()\nif s == '7':\n    print('Yes')\nelif s == '12':\n    print('No')\n"
    assert table_evidence(ast.parse(chain), shown, others) is not None
    chain_beyond = chain + "elif s == '97':\n    print('Yes')\n"
    assert table_evidence(ast.parse(chain_beyond), shown, others) is None


DAYS = case_task(
    context=RowContext(pack="t", file="x"),
    task_id="days",
    statement="Print the number of days in month M of year Y.\n\nExample 1\nInput:\n2023 2\nOutput:\n28\n\n"
    "Example 2\nInput:\n2023 4\nOutput:\n30\n",
    cases=CaseSuite(
        "stdio",
        tuple(
            Case(i, o)
            for i, o in (
                ("2023 2\n", "28\n"),
                ("2023 4\n", "30\n"),
                ("1900 2\n", "28\n"),
                ("2100 2\n", "28\n"),
                ("2023 1\n", "31\n"),
                ("2024 2\n", "29\n"),
            )
        ),
    ),
    reference="y, m = map(int, input().split())\nleap = y % 4 == 0 and (y % 100 != 0 or y % 400 == 0)\n"
    "print([31, 29 if leap else 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31][m - 1])\n",
)


@pytest.mark.parametrize("stop", [False, True], ids=["all-cases", "stop-at-first-failure"])
def test_a_real_world_table_that_holds_the_examples_is_no_evidence(reward_backend, stop: bool) -> None:
    """A days-per-month dict maps the examples' month tokens to their answers (red team N1), and a
    leap-year bug fails the first hidden case (N2): an honest bug, 0, never -0.5."""
    leap_bug = (
        "DAYS = {1: 31, 2: 28, 3: 31, 4: 30, 5: 31, 6: 30, 7: 31, 8: 31, 9: 30, 10: 31, 11: 30, 12: 31}\n"
        "y, m = map(int, input().split())\nprint(29 if m == 2 and y % 4 == 0 else DAYS[m])\n"
    )
    judge = RewardJudge(reward_backend, RewardConfig(stop_at_first_failure=stop))
    (scored,) = judge.score_many([(DAYS, leap_bug, None)])
    assert not scored.breakdown.passed and scored.breakdown.flags == ()
    assert scored.breakdown.total == 0.0


def test_a_guard_around_the_whole_solution_is_no_table() -> None:
    import ast

    from codegym.reward.shown_cases import table_evidence

    guarded = "n = int(input())\nif n >= 3:\n    print('YES' if n % 2 else 'NO')\nelse:\n    print('NO')\n"
    assert table_evidence(ast.parse(guarded), shown_cases(TASK)) is None
    chain = "s = input()\nif s == '7':\n    print('Yes')\nelif s == '12':\n    print('No')\n"
    assert table_evidence(ast.parse(chain), shown_cases(TASK)) is not None


def test_a_call_tasks_examples_are_shown_cases_however_the_statement_spaces_them() -> None:
    """Red team 14 P3: the gap detector sees `[2,7,11,15]` as the case ([2, 7, 11, 15], 9)."""
    statement = (
        "Return the indices of the two numbers that add up to target.\n\nExample 1:\n"
        "Input: nums = [2,7,11,15], target = 9\nOutput: [0,1]\n\nExample 2:\n"
        "Input: nums = [3,2,4], target = 6\nOutput: [1,2]\n"
    )
    pairs = [(([2, 7, 11, 15], 9), [0, 1]), (([1, 5, 8], 13), [1, 2]), (([3, 2, 4], 6), [1, 2])]
    task = case_task(
        context=RowContext(pack="t", file="x"),
        task_id="two_sum",
        statement=statement,
        cases=CaseSuite("call", tuple(Case(i, o) for i, o in pairs), function="two_sum"),
    )
    assert [case.index for case in shown_cases(task)] == [0, 2]
