"""Feedback for a failed attempt: what went wrong, in words the model can act on — status, the
error, failing test names and the traceback frames in its own files. Never the hidden tests' source:
test-file frames carry only `file:line` (the runner strips their text)."""

from __future__ import annotations

from codegym.reward.breakdown import RewardBreakdown
from codegym.sandbox.types import ExecResult, TestOutcome

MAX_TESTS = 5


def feedback_message(breakdown: RewardBreakdown, result: ExecResult | None, *, max_chars: int = 2000) -> str:
    lines = [
        f"Your solution did not pass: status {breakdown.status}, "
        f"{breakdown.tests_passed}/{breakdown.tests_total} hidden tests passed."
    ]
    if breakdown.flags:
        lines.append("It was flagged for trying to game the tests: " + ", ".join(breakdown.flags) + ".")
    if result is not None:
        if result.message:
            lines.append(f"Error: {result.message.strip()[:600]}")
        failing = [
            t
            for t in result.tests
            if t.outcome is not TestOutcome.PASSED and not t.test_id.startswith("visible__")
        ][:MAX_TESTS]
        for test in failing:
            name = test.test_id.split("::")[-1]
            detail = f": {test.message.strip()[:200]}" if test.message.strip() else ""
            lines.append(f"- {name} {test.outcome.value}{detail}")
            program_frames = [f for f in test.traceback.splitlines() if f.startswith(("File ", "    "))]
            if program_frames:
                lines.append("  " + "\n  ".join(program_frames[-4:]))
        if result.stderr.strip() and breakdown.status in ("error", "timeout", "memory"):
            lines.append("stderr (end):\n" + result.stderr.strip()[-400:])
    lines.append("Fix the problem and reply with the complete corrected file in one ```python block.")
    text = "\n".join(lines)
    return text if len(text) <= max_chars else text[: max_chars - 15] + "\n...[truncated]"
