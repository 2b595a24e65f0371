"""Feedback for a failed attempt: what went wrong, in words the model can act on — status, the
error, failing test names and the traceback frames in its own files. Never the hidden tests' source
nor their values (see `_details`: for a hidden test, its name, outcome and exception type only).

A message has three parts: a head (the status line), details (error, failing tests, frames, stderr)
and a closing instruction that matches what the next turn does. When the message must fit a budget,
only the details shrink, by cutting their middle: the head and the instruction always survive.

The closing instruction depends on the prompt style, and is the contract of the next turn:
* chat: the next turn is a new assistant reply, judged like the first one (a complete file in a
  ```python block);
* completion: the next turn continues the starter code again (the feedback, as `#` comments, ends by
  restating the starter), and it is judged like the first attempt (the starter plus what follows).
"""

from __future__ import annotations

import builtins
from dataclasses import dataclass
from typing import Literal

from codegym.reward.breakdown import RewardBreakdown
from codegym.sandbox.types import ExecResult, TestOutcome

Style = Literal["chat", "completion"]
MAX_TESTS = 5
MAX_CHARS = 2000
CUT_MARKER = "\n[... {} characters cut ...]\n"
CLOSING: dict[Style, str] = {
    "chat": "Fix the problem and reply with the complete corrected file in one ```python block.",
    "completion": "Fix the problem: the corrected version follows, starting again from the starter code.",
}


def cut_middle(text: str, width: int) -> str:
    """`text` in at most `width` characters: its start and (longer) its end, the middle replaced by a
    marker — an error's end (the last frames, the exception) says the most. "" when not even the
    marker fits."""
    if len(text) <= width:
        return text
    keep = width - len(CUT_MARKER.format(len(text)))
    if keep <= 0:
        return ""
    start = keep // 3
    return text[:start] + CUT_MARKER.format(len(text) - keep) + text[len(text) - (keep - start) :]


@dataclass(frozen=True)
class Feedback:
    head: str
    details: str
    closing: str

    @property
    def min_chars(self) -> int:
        """The shortest message: head and closing, no details."""
        return len(self.head) + 1 + len(self.closing)

    def render(self, max_chars: int = MAX_CHARS) -> str | None:
        """The message in at most `max_chars` characters, the details cut in the middle to fit; None
        when not even the head and the closing fit."""
        if max_chars < self.min_chars:
            return None
        details = cut_middle(self.details, max_chars - self.min_chars - 1)
        return "\n".join(part for part in (self.head, details, self.closing) if part)


def without_interpreter_frames(text: str) -> str:
    """`text` less the interpreter's own import frames (`File "<frozen ...>"` and the code line under
    each): they say nothing about the model's code and crowd out what does."""
    kept: list[str] = []
    in_frame = False
    for line in text.splitlines():
        if line.startswith('File "<frozen '):
            in_frame = True
        elif not (in_frame and line.startswith("    ")):
            in_frame = False
            kept.append(line)
    return "\n".join(kept)


def _details(breakdown: RewardBreakdown, result: ExecResult) -> list[str]:
    # What the program reports (an exception, its frames, its stderr, even a malformed message the
    # harness quotes) can carry whatever a hidden test sent it, and a failed assert says `actual !=
    # expected`: shown at one attempt, the hidden tests' values would let the next be a lookup table
    # judged by those same tests. So the details of a test module's run show, for a hidden test,
    # only its name (a parametrized case by number: pytest's ids hold the parameters), its outcome
    # and a builtin exception type; the run's error and stderr only when no test could have sent the
    # program anything (it failed at import, or only cases ran: a case sends its input alone).
    # A failing visible test (its values are in the prompt) is shown whole.
    lines = []
    quotes_nothing = all(t.message_holds_no_test_data for t in result.tests)
    if result.message and quotes_nothing:
        lines.append(f"Error: {cut_middle(without_interpreter_frames(result.message.strip()), 600)}")
    failing = [t for t in result.tests if t.outcome is not TestOutcome.PASSED]
    failing = sorted(failing, key=lambda t: t.suite != "hidden")[:MAX_TESTS]
    names = _hidden_names(result)
    for test in failing:
        visible = test.suite == "visible" or test.message_holds_no_test_data
        name = test.test_id.split("::")[-1] if visible else names[test.test_id]
        name += " (visible)" if test.suite == "visible" else ""
        message = test.message.strip() if visible else _exception_type(test.message)
        detail = f": {cut_middle(message, 200)}" if message else ""
        lines.append(f"- {name} {test.outcome.value}{detail}")
        if not visible:
            continue
        frames = without_interpreter_frames(test.traceback).splitlines()
        program_frames = [f for f in frames if f.startswith(("File ", "    "))]
        if program_frames:
            lines.append("  " + "\n  ".join(program_frames[-4:]))
    if result.stderr.strip() and breakdown.status in ("error", "timeout", "memory") and quotes_nothing:
        lines.append("stderr (end):\n" + result.stderr.strip()[-400:])
    return lines


def _hidden_names(result: ExecResult) -> dict[str, str]:
    """Each hidden test's name as shown: a parametrized case as `test_x[case 3]` (its number among
    the test's cases), never pytest's id, which holds the case's parameters (expected values too)."""
    names, seen = {}, {}
    for test in result.tests:
        name = test.test_id.split("::")[-1]
        function, bracket, _ = name.partition("[")
        if bracket:
            seen[function] = seen.get(function, 0) + 1
            name = f"{function}[case {seen[function]}]"
        names[test.test_id] = name
    return names


def _exception_type(message: str) -> str:
    """The builtin exception type a hidden test's message starts with (a program's own exception
    class names whatever the program likes, so it is not named)."""
    if not message.strip():
        return ""
    kind = message.strip().split(":", 1)[0].strip()
    builtin = getattr(builtins, kind, None)
    if isinstance(builtin, type) and issubclass(builtin, BaseException):
        return f"{kind} (a hidden test's values are not shown)"
    return "an exception (a hidden test's values are not shown)"


def feedback_for(breakdown: RewardBreakdown, result: ExecResult | None, *, style: Style = "chat") -> Feedback:
    head = [
        f"Your solution did not pass: status {breakdown.status}, "
        f"{breakdown.tests_passed}/{breakdown.tests_total} hidden tests passed."
    ]
    if breakdown.flags:
        head.append("It was flagged for trying to game the tests: " + ", ".join(breakdown.flags) + ".")
    details = _details(breakdown, result) if result is not None else []
    return Feedback("\n".join(head), "\n".join(details), CLOSING[style])


def feedback_message(
    breakdown: RewardBreakdown,
    result: ExecResult | None,
    *,
    style: Style = "chat",
    max_chars: int = MAX_CHARS,
) -> str:
    """The feedback as one message of at most `max_chars` characters (the closing alone, cut, when
    even head and closing do not fit)."""
    feedback = feedback_for(breakdown, result, style=style)
    return feedback.render(max_chars) or feedback.closing[:max_chars]
