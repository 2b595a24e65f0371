"""Reward components, the joint total and its gates, and the configuration."""

from __future__ import annotations

from pathlib import Path

import pytest

from codegym.reward.complexity import complexity_report, complexity_score
from codegym.reward.config import RewardConfig, RewardConfigError, bundled_config
from codegym.reward.scoring import RewardJudge
from codegym.reward.style import StyleReport, code_line_count, code_lines, line_allowance, style_reports
from codegym.sandbox.types import ExecResult, ExecStatus
from codegym.tasks.humaneval import load_humaneval_pack

HUMANEVAL = load_humaneval_pack()


def test_style_counts_only_generated_lines() -> None:
    prefix = "import os\nfrom typing import List\n\n\ndef f(xs: List[int]) -> int:\n"
    clean = prefix + "    return sum(xs)\n"
    messy = prefix + "    unused = 1\n    if xs == None:\n        return 0\n    return sum(xs)\n"
    first = prefix.count("\n") + 1
    reports = style_reports([(clean, first), (messy, first)], RewardConfig().ruff_config)
    assert reports[0].findings == ()  # the prompt's unused `import os` is not the model's
    assert {f.split(":")[0] for f in reports[1].findings} == {"F841", "E711"}
    assert reports[0].score(10.0) == 1.0
    assert reports[1].score(10.0) == pytest.approx(1 / (1 + 10 * 2 / 4))


def test_style_of_unparseable_code_reports_the_syntax_error() -> None:
    (report,) = style_reports([("def f(:\n    pass\n", 1)], RewardConfig().ruff_config)
    assert report.findings and report.score(10.0) < 1.0


def test_complexity_relative_to_reference() -> None:
    reference = complexity_report("def f(x):\n    return abs(x)\n")
    same = complexity_report("def f(x):\n    return abs(x)\n")
    assert reference is not None and reference.cyclomatic == 1
    branchy = complexity_report(
        "def f(x):\n    if x > 0:\n        return x\n    elif x < 0:\n        return -x\n"
        "    elif x == 0:\n        return 0\n    for _ in range(3):\n        if x:\n            pass\n    return x\n"
    )
    assert complexity_score(same, reference) == 1.0
    assert 0 < complexity_score(branchy, reference) < 0.75
    assert complexity_score(complexity_report("def f(:\n"), reference) == 0.0


def test_complexity_counts_the_generated_functions_only() -> None:
    prompt = (
        '"""A long module docstring the prompt wrote.\n\nIt goes on.\n"""\n\n\n'
        "def helper(x):\n    if x:\n        return 1\n    elif x is None:\n        return 2\n    return 3\n\n\n"
        'def f(x):\n    """Docstring."""\n'
    )
    first = prompt.count("\n") + 1
    one_liner = complexity_report(prompt + "    return x\n", first)
    branchy = complexity_report(prompt + "    if x:\n        return 1\n    return 0\n", first)
    assert one_liner is not None and one_liner.cyclomatic == 1  # helper's branches are the prompt's
    assert branchy is not None and branchy.cyclomatic == 2
    assert complexity_score(one_liner, branchy) == 1.0


def _judge(**overrides: object) -> RewardJudge:
    return RewardJudge(backend=None, config=RewardConfig.from_dict(overrides) if overrides else None)  # type: ignore[arg-type]


def _total(
    judge: RewardJudge, tests: float, quality: float, *, status=ExecStatus.FAILED, hacked=False
) -> float:
    components = {
        "tests": tests,
        "coverage": quality,
        "style": quality,
        "complexity": quality,
        "efficiency": quality,
    }
    return judge._total(components, passed=tests == 1.0 and not hacked, status=status, hacked=hacked)


def test_default_reward_teaches_correctness() -> None:
    """Binary correctness and the all_passed gate: every fully correct program outranks every partly
    correct one, and quality only orders correct programs."""
    judge = _judge()
    correct_ugly = _total(judge, 1.0, 0.0)
    assert _total(judge, 0.0, 1.0) == 0.0
    assert correct_ugly > 0.7 and _total(judge, 1.0, 1.0) == pytest.approx(1.0)
    assert _total(judge, 1.0, 0.5) > correct_ugly


def test_proportional_gate_wrong_but_pretty_never_beats_correct() -> None:
    judge = _judge(correctness="fraction", quality_gate="proportional")
    assert _total(judge, 0.0, 1.0) == 0.0
    assert _total(judge, 1.0, 0.0) > _total(judge, 0.0, 1.0)
    assert _total(judge, 1.0, 1.0) == pytest.approx(1.0)
    assert _total(judge, 0.5, 1.0) == pytest.approx(0.5)


def test_all_passed_gate_correct_always_outranks_partially_correct() -> None:
    judge = _judge(correctness="fraction", quality_gate="all_passed")
    correct_ugly = _total(judge, 1.0, 0.0)
    for tests in (0.0, 0.5, 0.9, 0.99):
        assert _total(judge, tests, 1.0) < correct_ugly


def test_penalties() -> None:
    judge = _judge(timeout_penalty=0.25, hack_penalty=0.5, error_penalty=0.1, quality_gate="proportional")
    assert _total(judge, 0.5, 0.0, status=ExecStatus.TIMEOUT) == pytest.approx(0.5 / 1.4 - 0.25)
    assert _total(judge, 0.0, 0.0, status=ExecStatus.ERROR) == pytest.approx(-0.1)
    assert _total(judge, 0.0, 1.0, hacked=True) == pytest.approx(-0.5)


def test_coverage_counts_generated_lines_and_branches_only() -> None:
    result = ExecResult(
        status=ExecStatus.PASSED,
        coverage={
            "complete": True,
            "executed_lines": [1, 2, 5, 6],
            "missing_lines": [3, 7],
            "executed_branches": [[5, 6]],
            "missing_branches": [[5, 7], [2, 3]],
        },
    )
    assert RewardJudge._coverage(result, 5, None) == pytest.approx((2 + 1) / (3 + 2))
    assert RewardJudge._coverage(ExecResult(status=ExecStatus.ERROR), 1, None) is None


def test_a_cut_coverage_pass_and_uncounted_lines() -> None:
    import ast

    cut = ExecResult(status=ExecStatus.PASSED, coverage={"complete": False})
    assert RewardJudge._coverage(cut, 1, None) is None  # no figure, dropped from the weighted mean
    code = (
        "LIMIT = 10\nNAMES = ('a', 'b')\n\n\ndef f(x):\n    return x\n\n\n"
        "if __name__ == '__main__':\n    print(f(1))\n"
    )
    result = ExecResult(
        status=ExecStatus.PASSED,
        coverage={
            "complete": True,
            "executed_lines": [1, 2, 5, 6],
            "missing_lines": [9, 10],
            "executed_branches": [],
            "missing_branches": [[9, 10]],
        },
    )
    assert RewardJudge._coverage(result, 1, ast.parse(code)) == 1.0  # __main__ and constants uncounted


def test_correctness_defaults_to_binary_with_the_fraction_logged() -> None:
    assert RewardConfig().correctness == "binary" and RewardConfig().quality_gate == "all_passed"
    assert RewardConfig().correctness_credit(0.75, passed=False) == 0.0
    assert RewardConfig(correctness="fraction").correctness_credit(0.75, passed=False) == 0.75


@pytest.mark.parametrize("path", sorted(bundled_config("reward").glob("*.yaml")), ids=lambda p: p.name)
def test_bundled_reward_configs_are_valid(path: Path) -> None:
    config = RewardConfig.from_yaml(path)
    assert Path(config.ruff_config).is_file()
    assert len(config.fingerprint()) == 64


@pytest.mark.parametrize(
    ("text", "fragment"),
    [
        ("weights:\n  tests: 1\n  speed: 2\n", "unknown weights ['speed']"),
        ("weights:\n  tests: 0\n", "weights.tests must be > 0"),
        ("weights:\n  style: -1\n", "weights.style must be a number >= 0"),
        ("quality_gate: sometimes\n", "quality_gate must be"),
        ("detectors: [early_exit, mind_reading]\n", "unknown detectors ['mind_reading']"),
        ("timeout: 3\n", "unknown field(s) ['timeout']"),
        ("- a\n", "must be a mapping"),
    ],
)
def test_bad_reward_config_names_file_and_field(tmp_path: Path, text: str, fragment: str) -> None:
    path = tmp_path / "reward.yaml"
    path.write_text(text)
    with pytest.raises(RewardConfigError) as info:
        RewardConfig.from_yaml(path)
    assert str(path) in str(info.value) and fragment in str(info.value)


def test_config_fingerprint_changes_with_weights_and_ruff_rules(tmp_path: Path) -> None:
    base = RewardConfig()
    assert RewardConfig().fingerprint() == base.fingerprint()
    assert RewardConfig.from_dict({"weights": {"style": 0.3}}).fingerprint() != base.fingerprint()
    rules = tmp_path / "ruff.toml"
    rules.write_text("[lint]\nselect = ['E']\n")
    assert RewardConfig(ruff_config=str(rules)).fingerprint() != base.fingerprint()


def test_efficiency_rewards_cpu_time_against_the_reference(reward_backend) -> None:
    task = HUMANEVAL.get("HumanEval/0")
    slow_body = (
        "    x = 0\n    for i in range(300000):\n        x += i\n"
        + task.reference_solution[len(task.prefix) :]
    )
    # a 10 ms floor: the reference against itself loses a step only when both of its timings read
    # twice its own time (with the 2 ms default, a 2 ms program under this suite's load sometimes did)
    judge = RewardJudge(reward_backend, RewardConfig(timing_floor_ms=10.0))
    fast, slow = judge.score_many(
        [(task, task.reference_solution, None), (task, task.prefix + slow_body, None)]
    )
    assert fast.breakdown.components["efficiency"] == 1.0  # the reference against itself
    assert slow.breakdown.passed and slow.breakdown.components["efficiency"] < 0.3
    assert slow.breakdown.details["cpu_s"] > fast.breakdown.details["cpu_s"]
    assert fast.breakdown.total > slow.breakdown.total
    # timing repeats only while a better minimum could still raise the score
    enough = judge._references[task.fingerprint].cpu_s * (1 + judge.config.timing_tolerance)
    budget = judge.request_for(task, task.reference_solution).timing_budget_s
    # ... in each of two judgments for a program below full efficiency (`retime`)
    repeats = 1 + judge.config.timing_repeats
    assert len(slow.result.timings_s) == 2 * repeats or slow.result.timings_s[0] >= budget
    assert len(fast.result.timings_s) == 1 or fast.result.timings_s[0] > enough


def test_a_failing_program_has_no_coverage_component(reward_backend) -> None:
    """No coverage pass runs for a program that failed a hidden test (it would be cut at that test);
    the component is None, dropped from the weighted mean, with either kind of correctness."""
    task = HUMANEVAL.get("HumanEval/0")
    wrong = task.prefix + "    return False\n"
    for config in (RewardConfig(), RewardConfig(correctness="fraction")):
        scored = RewardJudge(reward_backend, config).score_many([(task, wrong, None)])[0]
        assert not scored.breakdown.passed and scored.result.coverage is None
        assert scored.breakdown.components["coverage"] is None


def test_sandbox_error_is_none_not_zero(broken_backend) -> None:
    task = HUMANEVAL.get("HumanEval/0")
    breakdown = RewardJudge(broken_backend, RewardConfig()).score(task, task.reference_solution)
    assert breakdown.total is None and breakdown.status == "sandbox_error"
    assert set(breakdown.components.values()) == {None}


@pytest.mark.parametrize(
    ("code", "reason"),
    [("x = 1\n" * 1_000_000, "the limit is 1,000,000"), ("x = '\ud800'\n", "lone surrogate")],
)
def test_a_program_that_cannot_be_sent_is_the_models_fault_not_none(
    reward_backend, code: str, reason: str
) -> None:
    """In training a 6 MB program (or one with a lone surrogate) scores 0 as `error`: a reward of
    None would call it a sandbox failure and hide it from the policy's learning signal."""
    task = HUMANEVAL.get("HumanEval/0")
    breakdown = RewardJudge(reward_backend, RewardConfig()).score(task, code)
    assert breakdown.status == "error" and breakdown.total == 0.0, breakdown
    assert reason in breakdown.details["message"]


def test_the_programs_own_suppression_comments_do_not_hide_findings() -> None:
    messy = "import os\nx = 1\nif x == None:\n    pass\n"
    silenced = "# ruff: noqa\nimport os  # noqa\nx = 1\nif x == None:  # noqa: E711\n    pass\n"
    plain, quiet = style_reports([(messy, 1), (silenced, 1)], RewardConfig().ruff_config)
    assert (
        {f.split(":")[0] for f in plain.findings}
        == {f.split(":")[0] for f in quiet.findings}
        == {"F401", "E711"}
    )


def test_module_level_decisions_count_toward_complexity() -> None:
    # branches moved into module-level lambdas and comprehensions are branches all the same
    in_function = complexity_report("def f(n):\n    return 'a' if n > 1 else ('b' if n < 0 else 'c')\n")
    in_lambda = complexity_report("f = lambda n: 'a' if n > 1 else ('b' if n < 0 else 'c')\n")
    assert in_function is not None and in_lambda is not None
    assert in_lambda.cyclomatic == in_function.cyclomatic == 3


@pytest.mark.parametrize(
    "code, hidden",
    [
        ('_SRC = """def f(x):\n    return x"""\nexec(_SRC)\n', True),
        ('f = eval("lambda n: 1 if n else 2")\n', True),
        ('def f(n):\n    s = "n * 2"\n    return eval(s)\n', True),
        ('"""def f(): pass"""\nexec(__doc__)\n', True),
        ("code = compile(source, 'x', 'exec')\n", True),
        # eval of data the program built is not hidden code (HumanEval/160's own reference)
        (
            "def do_algebra(ops, nums):\n    expression = str(nums[0])\n"
            "    for op, n in zip(ops, nums[1:]):\n        expression += op + str(n)\n    return eval(expression)\n",
            False,
        ),
        ("a = eval(input())\nprint(a)\n", False),
    ],
    ids=[
        "exec_constant",
        "eval_lambda",
        "eval_local_literal",
        "exec_docstring",
        "compile",
        "eval_data",
        "eval_input",
    ],
)
def test_code_built_at_runtime_is_out_of_sight(code: str, hidden: bool) -> None:
    import ast

    from codegym.reward.complexity import hides_code

    assert hides_code(ast.parse(code)) is hidden


def test_a_program_in_an_exec_string_gets_no_quality_credit(reward_backend) -> None:
    task = HUMANEVAL.get("HumanEval/2")
    hidden = (
        'SRC = """\ndef truncate_number(number: float) -> float:\n    return number % 1.0\n"""\nexec(SRC)\n'
    )
    judge = RewardJudge(reward_backend, RewardConfig())
    plain, in_string = judge.score_many(
        [(task, task.prompt + "    return number % 1.0\n", None), (task, hidden, None)]
    )
    assert plain.breakdown.passed and in_string.breakdown.passed  # correct: it passes
    assert in_string.breakdown.components["style"] == in_string.breakdown.components["complexity"] == 0.0
    assert in_string.breakdown.details["builds_code_at_runtime"] is True
    assert in_string.breakdown.total < plain.breakdown.total


def test_complexity_without_a_usable_reference_is_dropped(reward_backend) -> None:
    """No reference (LiveCodeBench publishes none) or one that fails its tests: nothing to compare
    with, so complexity is None (dropped from the mean), as efficiency is — never 1/CC (false flag
    round 14 Q6)."""
    from codegym.tasks.cases import Case, CaseSuite
    from codegym.tasks.formats.base import RowContext, case_task

    assert complexity_score(complexity_report("def f(n):\n    return n\n"), None) is None
    program = "n = int(input())\nfor _ in range(2):\n    if n > 0:\n        n -= 1\nprint(n)\n"
    cases = CaseSuite("stdio", (Case("3\n", "1\n"), Case("0\n", "0\n")))
    scored = []
    for task_id, reference in (("no_reference", ""), ("failing_reference", "print(7)\n")):
        task = case_task(
            context=RowContext(pack="t", file="x"),
            task_id=task_id,
            statement="Subtract 2, floor 0.",
            cases=cases,
            reference=reference,
        )
        scored.append(RewardJudge(reward_backend, RewardConfig()).score(task, program))
    for breakdown in scored:
        assert breakdown.passed and breakdown.components["complexity"] is None
        assert breakdown.components["efficiency"] is None and breakdown.total == 1.0


def test_names_the_task_requires_cost_no_style() -> None:
    """MBPP's `find_Max_Num`, LeetCode's `maxProfit(self, prices, transactionFee)`: no correct
    program can avoid them (false flag round 14 Q4); a camelCase name of the program's own still counts."""
    from codegym.reward.style import required_names

    leetcode = (
        "class Solution:\n    def maxProfit(self, prices: list, transactionFee: int) -> int:\n"
        "        bestSoFar = 0\n        return bestSoFar + transactionFee + len(prices)\n"
    )
    mbpp = "def find_Max_Num(arr, n):\n    return n\n\n\nfind_Max_Num = find_Max_Num\n"
    prompt = "Your code should pass these tests:\n\nassert find_Max_Num([1,2,3],3) == 321\n"
    starter = "class Solution:\n    def maxProfit(self, prices: List[int], transactionFee: int) -> int:\n"
    names = [required_names(prompt, "find_Max_Num"), required_names(starter, "maxProfit")]
    config = RewardConfig().ruff_config
    plain = style_reports([(mbpp, 1), (leetcode, 1)], config)
    exempt = style_reports([(mbpp, 1), (leetcode, 1)], config, names)
    assert {f.split(":")[0] for f in plain[0].findings} >= {"N802", "N816"}
    assert exempt[0].findings == ()
    assert {f.split(":")[0] for f in plain[1].findings} >= {"N802", "N803", "N806"}
    assert exempt[1].findings == ("N806:3",)  # bestSoFar is the program's own choice


_UGLY = (  # one correct program with 8 ruff findings (redteam round 18, W1)
    "import os, sys\n"
    "def humanize_bytes(size, binary = False):\n"
    "    if type(size) == bool or not isinstance(size, int):\n"
    '        raise TypeError("size must be an int")\n'
    "    if binary == True:\n"
    '        base = 1024; units = ("B", "KiB", "MiB", "GiB", "TiB", "PiB", "EiB")\n'
    "    else:\n"
    '        base = 1000; units = ("B", "kB", "MB", "GB", "TB", "PB", "EB")\n'
    '    l = "-" if size < 0 else ""\n'
    "    m = abs(size)\n"
    "    if m < base:\n"
    '        return f"{l}{m} B"\n'
    "    e = 1\n"
    "    while e < len(units) - 1 and base ** (e + 1) <= m:\n"
    "        e += 1\n"
    '    t = f"{m / base**e:.1f}"\n'
    "    if float(t) >= base and e < len(units) - 1:\n"
    "        e += 1\n"
    '        t = f"{m / base**e:.1f}"\n'
    '    return f"{l}{t} {units[e]}"\n'
)


def test_comments_docstrings_and_strings_do_not_dilute_style_findings() -> None:
    """Findings are taken per line of code: lines that hold no code (comments, docstrings, bare
    strings, the inside of a string) cannot be added to dilute them (round 18, W1: 2000 comment
    lines raised 8 findings' style from 0.2 to 0.962)."""
    filler = "".join(f"# note {i}\n" for i in range(2000))
    text = "".join(f"padding line {i}\n" for i in range(2000))
    padded = [
        _UGLY + filler,
        filler + _UGLY,
        _UGLY.replace("    if type(size)", '    """' + text + '    """\n    if type(size)'),  # a docstring
        _UGLY + '\n"""' + text + '"""\n',  # a module-level bare string
        _UGLY + "\n" + "".join(f'"pad {i}"\n' for i in range(2000)),  # one-line bare strings
        _UGLY + '\n_PAD = """' + text + '"""\n',  # a string constant: its text is not code
        _UGLY.replace("    m = abs(size)\n", "    m = abs(size)\n" + "\n" * 2000),
    ]
    config = RewardConfig().ruff_config
    plain, *others = style_reports([(_UGLY, 1), *((code, 1) for code in padded)], config)
    assert len(plain.findings) == 8 and plain.code_lines == 20
    assert plain.score(10.0) == pytest.approx(1 / (1 + 10 * 8 / 20))
    for code, report in zip(padded[:-2], others[:-2], strict=True):
        assert report.score(10.0) == plain.score(10.0), code[:200]
    assert others[-2].code_lines == 21 and len(others[-2].findings) == 8  # `_PAD = ...` is one line
    assert others[-1].score(10.0) <= plain.score(10.0)  # blank lines: ruff's E303 as well


def test_comments_neither_help_nor_hurt_style() -> None:
    """A well-commented program scores as the same program without its comments, clean or not:
    findings about a comment's or a docstring's text (a long line, trailing spaces) do not count."""
    bare = "def mean(xs):\n    total = sum(xs)\n    return total / len(xs) if xs else 0.0\n"
    commented = (
        "def mean(xs):\n"
        '    """The arithmetic mean of `xs`, 0.0 for an empty list.   \n\n'
        "    A very long docstring line that goes on and on and on, well past the one hundred "
        "characters ruff allows.\n"
        '    """\n'
        "    # add them up first; an empty list has no mean, so it gets 0.0 by convention here, "
        "which a long comment explains\n"
        "    total = sum(xs)  # builtin sum\n"
        "\n"
        "    # then divide   \n"
        "    return total / len(xs) if xs else 0.0\n"
    )
    messy_bare, messy_commented = (
        code.replace("total = sum(xs)", "l = sum(xs)").replace("return total", "return l")
        for code in (bare, commented)
    )
    reports = style_reports(
        [(bare, 1), (commented, 1), (messy_bare, 1), (messy_commented, 1)], RewardConfig().ruff_config
    )
    assert [r.code_lines for r in reports] == [3, 3, 3, 3]
    assert reports[0].score(10.0) == reports[1].score(10.0) == 1.0
    assert (reports[2].findings, reports[3].findings) == (("E741:2",), ("E741:7",))  # `l`: the same finding
    assert reports[2].score(10.0) == reports[3].score(10.0) < 1.0


def test_code_lines_are_the_lines_a_statement_token_starts_on() -> None:
    from codegym.reward.style import code_line_count, code_lines

    code = (
        '"""Module docstring.\n\nMore.\n"""\n'  # 1-4
        "import os\n"  # 5
        "# a comment\n"  # 6
        "\n"  # 7
        "def f(x):\n"  # 8
        '    """Doc."""\n'  # 9
        '    s = """\n    text\n    """\n'  # 10-12: one line of code
        '    "alone"; y = 1\n'  # 13
        "    return (x +  # why\n"  # 14
        "            y)\n"  # 15
    )
    assert code_lines(code) == {5, 8, 10, 13, 14, 15}
    assert code_line_count(code, 8) == 5
    assert code_lines("def f(:\n") is None
    assert code_line_count("def f(:\n    # c\n\n    pass\n", 1) == 2  # unparseable: non-blank, not comments


_TOKEN_EDGE_CASES = [
    'def f():\r\n    """doc\r\n    x"""\r\n    return 1\r\n',  # CRLF
    "x = 1\n\x0c\ny = 2\n",  # a form feed
    's = \'é\'; """après"""; t = 1\n',  # non-ASCII before a bare string on its line
    "é = 1; 'ü'  ;  y = 'ß'\n'docs here'\n",
    "s = '😀'; 'doc😀'; z = 3\n",  # four UTF-8 bytes per character
    "def f():\n\t'doc'\n\treturn 1\n",
    "x = (1 +\n     2)\\\n\n",
    "y = f'{1}' f'''{\n2\n}'''\n",  # a multi-line f-string's inner expression
    "a = '''x\ny''' ; b = 2\n",
    "'''only\ndoc'''",
    "x = [\n    1,  # c\n\n    2,\n]\n",
    "class A:\n    'd'; x = 1\n",
    "def f():\n    'é' 'b'\n    return 'é'\n",
    "x = 1\n'éééé' 'b'\n",  # a bare string's second piece: 8 characters in, 11 bytes
    "def g():\n    return '''\n    é\n    ''' + '''\nb'''\n",
    "x = 'a'\\\n    'b'\n",
    "match x:\n    case 1:\n        'a'\n",
    "",
    "\n\n# c\n",
]


@pytest.mark.parametrize("code", _TOKEN_EDGE_CASES)
def test_code_lines_are_the_same_from_either_tokenizer(code: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """3.11's C tokenizer (columns in UTF-8 bytes, as the AST's) finds the same code lines as the
    tokenize module (columns in characters), on sources where the two could differ."""
    from codegym.reward import style

    if style._C_TOKENS is None:
        pytest.skip("this interpreter has no C tokenizer iterator of 3.11's form")
    fast = style.code_lines(code)
    monkeypatch.setattr(style, "_C_TOKENS", None)
    assert fast is not None and fast == style.code_lines(code)


def test_decisions_outside_function_bodies_count_toward_complexity() -> None:
    """A parameter's default, a decorator, a class body outside its methods, a base class or an
    annotation: a branchy helper placed there is counted as in the body (round 18, W4: the same
    5-way chain scored complexity 1.0 from a default-argument lambda, a class body or a decorator)."""
    chain = "1 if m < 2 else 2 if m < 3 else 3 if m < 4 else 4 if m < 5 else 5"
    placements = {
        "body": f"def f(m):\n    return {chain}\n",
        "default lambda": f"def f(m, _e=lambda m: {chain}):\n    return _e(m)\n",
        "keyword-only default": f"def f(m, *, _e=lambda m: {chain}):\n    return _e(m)\n",
        "class-body lambda": f"class _E:\n    of = staticmethod(lambda m: {chain})\n\n\n"
        "def f(m):\n    return _E.of(m)\n",
        "class-body statement": "class _E:\n    table = {}\n    for m in range(6):\n"
        f"        table[m] = {chain}\n\n\ndef f(m):\n    return _E.table[m]\n",
        "decorator": f"@(lambda g: lambda m: g(m, lambda m: {chain}))\ndef f(m, e):\n    return e(m)\n",
        "class decorator": f"@(lambda c: (setattr(c, 'of', staticmethod(lambda m: {chain})), c)[1])\n"
        "class _E:\n    pass\n\n\ndef f(m):\n    return _E.of(m)\n",
        "base class": f"class _E(type('B', (), {{'of': staticmethod(lambda m: {chain})}})):\n    pass\n\n\n"
        "def f(m):\n    return _E.of(m)\n",
        "annotation": f"def f(m: (lambda m: {chain})):\n    return f.__annotations__['m'](m)\n",
        "return annotation": f"def f(m) -> (lambda m: {chain}):\n    return f.__annotations__['return'](m)\n",
    }
    cyclomatic = {}
    for name, code in placements.items():
        report = complexity_report(code)
        assert report is not None, name
        cyclomatic[name] = report.cyclomatic
    assert cyclomatic["body"] == 5
    assert cyclomatic["class-body statement"] == 6  # its `for` loop is one more decision
    assert {cc for name, cc in cyclomatic.items() if name != "class-body statement"} == {5}, cyclomatic


def test_complexity_counts_each_decision_once() -> None:
    """Radon's rules, once per decision wherever it sits: a nested function's body is its own (its
    default is the enclosing body's), a lambda's and a comprehension's decisions are the body's
    they sit in, and a method counts once (radon lists methods both in its blocks and in their
    class: they used to count twice, so a helper moved out of a class counted half)."""
    from radon.visitors import ComplexityVisitor

    nested = (
        "def f(xs, a):\n"  # 1
        "    def g(x=(1 if a else 2)):\n"  # f: +1 (g's default is evaluated in f)
        "        return x if x else 0\n"  # g: 1 + 1
        "    h = lambda v: v or 0\n"  # f: +1
        "    return [g(x) for x in xs if x] + [h(x) for x in xs]\n"  # f: +2, +1
    )
    report = complexity_report(nested)
    assert report is not None and (report.cyclomatic, report.functions) == (1 + 5 + 2, 2)
    as_methods = (
        "class Solution:\n    def f(self, x):\n        return self.g(x) if x else 0\n\n"
        "    def g(self, x):\n        return -x if x < 0 else x\n"
    )
    as_functions = "def f(x):\n    return g(x) if x else 0\n\n\ndef g(x):\n    return -x if x < 0 else x\n"
    in_a_function = (
        "def outer():\n    " + as_methods.replace("\n", "\n    ").rstrip() + "\n    return Solution\n"
    )
    inner = "class Outer:\n    " + as_methods.replace("\n", "\n    ").rstrip() + "\n"
    assert complexity_report(as_methods) == complexity_report(as_functions)
    assert complexity_report(as_methods).cyclomatic == 4  # type: ignore[union-attr]
    assert complexity_report(in_a_function).cyclomatic == 5  # type: ignore[union-attr]  # radon drops these methods
    assert complexity_report(inner).cyclomatic == 4  # type: ignore[union-attr]  # radon drops these too
    # where radon sees everything, the count is radon's
    plain = (
        "def f(xs, key):\n"
        "    total = 0\n"
        "    for x in xs:\n        if x and key or not x:\n            total += 1\n    else:\n        pass\n"
        "    while total > 10:\n        total -= 1\n"
        "    try:\n        total += int(key)\n    except ValueError:\n        pass\n"
        "    except TypeError:\n        pass\n    else:\n        total += 1\n"
        "    match key:\n        case 1:\n            pass\n        case [a, b]:\n            pass\n"
        "        case _:\n            pass\n"
        "    return {x: y for x in xs for y in xs if x if y}\n"
    )
    visitor = ComplexityVisitor.from_code(plain)
    assert complexity_report(plain).cyclomatic == visitor.functions[0].complexity  # type: ignore[union-attr]


def test_prompt_decorators_and_defaults_do_not_count() -> None:
    prompt = '@(lambda f: f if f else None)\ndef f(x, y=(1 if True else 2)):\n    """Doc."""\n'
    first = prompt.count("\n") + 1
    report = complexity_report(prompt + "    return x\n", first)
    assert report is not None and report.cyclomatic == 1
    generated = complexity_report(
        prompt + "    return x\n\n\ndef g(z=(1 if True else 2)):\n    return z\n", first
    )
    assert generated is not None and generated.cyclomatic == 3


@pytest.mark.parametrize(
    "pack, task_id",
    [
        ("basics", "humanize_bytes"),
        ("basics", "lru_cache"),
        ("basics", "trie"),
        ("repo", "lfu_cache_policy"),
        ("cp_call", "9101"),
        ("mbpp_mini", "1005"),
    ],
)
def test_a_bundled_reference_scores_full_complexity_against_itself(pack: str, task_id: str) -> None:
    from codegym.reward.extract import first_generated_line
    from codegym.tasks.registry import TaskRegistry

    task = TaskRegistry([], use_entry_points=False).load(pack).tasks[task_id]
    report = complexity_report(task.reference_solution, first_generated_line(task, task.reference_solution))
    assert report is not None and report.functions >= 1
    assert complexity_score(report, report) == 1.0


def test_statements_that_do_nothing_dilute_findings_only_up_to_the_reference_allowance() -> None:
    """Lines of code are the denominator, so `_ = 0` repeated would dilute any number of findings:
    they count up to three times the reference's lines of code (at least 20), no further."""
    task = HUMANEVAL.get("HumanEval/0")
    judge = RewardJudge(None, RewardConfig())  # type: ignore[arg-type]
    reference_lines = code_line_count(task.reference_solution, len(task.prefix.splitlines()) + 1)
    allowance = judge._style_line_allowance(task)
    assert allowance == line_allowance(reference_lines) == max(3 * reference_lines, 20)
    ugly = StyleReport(findings=("E401:3", "E741:4"), code_lines=10)
    padded = StyleReport(findings=ugly.findings, code_lines=10 + 2000)
    assert padded.score(10.0, allowance) == StyleReport(ugly.findings, allowance).score(10.0)
    assert padded.score(10.0, allowance) < 0.6 < padded.score(10.0)
    assert ugly.score(10.0, allowance) == ugly.score(10.0)  # ordinary lengths: no change
    assert line_allowance(None) is None  # no reference, no cap


def test_expressions_inside_a_multi_line_f_string_are_code() -> None:
    """Before 3.12 a multi-line f-string is one token, so the lines of its replacement fields began
    no token and every finding there was dropped (red team 19, X1: style 0.158 -> 1.0 by splitting
    the same expressions over lines); its text lines stay text."""
    split = 'def f(size):\n    return f"""{\ntype(size) == bool\n}\ntext only\n"""\n'
    assert code_lines(split) == frozenset({1, 2, 3})
    (report,) = style_reports([(split, 1)], RewardConfig().ruff_config)
    assert "E721:3" in report.findings and report.code_lines == 3


def test_a_bare_string_of_wide_characters_hides_no_code_after_it() -> None:
    """The AST counts columns in UTF-8 bytes, tokenize in characters: a bare string of multi-byte
    characters looked two to three times longer, and the code after it on its line was taken for
    string text, its findings dropped (red team 20, Z1: style 0.062 -> 1.0)."""
    code = 'def f(x):\n    "好好好好好好好好好好"; l = x == None\n    return l\n'
    assert code_lines(code) == frozenset({1, 2, 3})
    (report,) = style_reports([(code, 1)], RewardConfig().ruff_config)
    assert {"E711:2", "E741:2"} <= set(report.findings)
