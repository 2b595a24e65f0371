"""The worked examples of a stdin/stdout task's statement: an input block and, in the same example,
its output block.

A block is whole lines of the statement (whitespace inside a line aside); its first line may follow
a short label (`Input: 16`). Where the statement labels its examples (Input / Output, Sample Input 1
/ Sample Output 1), the input block must sit right under an input label and the output block right
under an output label, with no input label between them: one example's output read as the next
example's input is no example (false-flag round 14 Q7b). A statement without such labels gives
nothing to tell examples apart by; there the output need only follow its input within
EXAMPLE_WINDOW_LINES.
"""

from __future__ import annotations

import re

EXAMPLE_WINDOW_LINES = 20  # how far below its input a worked example's output may be

_INLINE_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 #]{0,24}[:=] ?")  # "Input: ", "Sample Output 1: "
# a label line: "Input", "-----Sample Input 2-----", "Example output:", "Input: 16" (inline)
_LABEL_LINE = re.compile(
    r"(?i)^[\W_]*(?:(?:sample|example|expected|test)s?\s*(?:case\s*)?)?(input|output)s?\b[^A-Za-z]{0,12}$"
)
_FILLER = re.compile(r"^[\W_]*$")  # blank lines, ``` fences, ----- rules


def stdio_shown(case_input: str, expected: str, statement: str) -> bool:
    """Whether the statement works this case: its input block, then in the same example its output
    block. A number that merely occurs in the text ("Example 1") is not an example."""
    want_in = [line for line in _lines(case_input) if line]
    want_out = [line for line in _lines(expected) if line]
    if not want_in or not want_out:
        return False
    lines = _lines(statement)
    kinds = [_label_kind(line) for line in lines]
    labelled = "input" in kinds and "output" in kinds
    for start in range(len(lines) - len(want_in) + 1):
        if not _block_at(lines, start, want_in) or (labelled and _heading(lines, kinds, start) != "input"):
            continue
        below = start + len(want_in)
        for at in range(below, min(len(lines), below + EXAMPLE_WINDOW_LINES) - len(want_out) + 1):
            if not _block_at(lines, at, want_out):
                continue
            if not labelled or (_heading(lines, kinds, at) == "output" and "input" not in kinds[below:at]):
                return True
    return False


def _lines(text: str) -> list[str]:
    return [" ".join(line.split()) for line in text.splitlines()]


def _block_at(lines: list[str], at: int, wanted: list[str]) -> bool:
    """`wanted` are the lines from `at` on; the first may follow a short label on its line."""
    first = lines[at]
    if first != wanted[0]:
        label = _INLINE_LABEL.match(first)
        if label is None or first[label.end() :] != wanted[0]:
            return False
    return lines[at + 1 : at + len(wanted)] == wanted[1:]


def _label_kind(line: str) -> str | None:
    """ "input" or "output" when the line is (or starts with) such a label, else None."""
    match = _LABEL_LINE.match(line)
    if match is None:
        inline = _INLINE_LABEL.match(line)
        match = _LABEL_LINE.match(inline.group().strip()) if inline else None
    return match.group(1).lower() if match else None


def _heading(lines: list[str], kinds: list[str | None], at: int) -> str | None:
    """The label the block at `at` sits under: one on its own first line, else the nearest line
    above that is not filler."""
    if kinds[at] is not None:
        return kinds[at]
    above = at - 1
    while above >= 0 and _FILLER.match(lines[above]):
        above -= 1
    return kinds[above] if above >= 0 else None
