"""The worked examples of a stdin/stdout task's statement: an input block and, in the same example,
its output block.

A block is whole lines of the statement (whitespace inside a line aside, blank lines skipped on both
sides: "each test case is preceded by an empty line" prints them, red team 15 R2); its first line may
follow a short label (`Input: 16`). Where the statement labels its examples (Input / Output, Sample
Input 1 / Sample Output 1), the input block must sit right under an input label and the output block
right under an output label, with no input label between them: one example's output read as the next
example's input is no example (false-flag round 14 Q7b). A statement without such labels gives
nothing to tell examples apart by; there the output need only start within EXAMPLE_WINDOW_LINES
(non-blank lines) below its input.

A statement is read once (`StdioStatement`) and each case looked up by its first lines, so many cases
against a long statement stay cheap (red team 15 R5).
"""

from __future__ import annotations

import bisect
import functools
import re
from collections import defaultdict

EXAMPLE_WINDOW_LINES = 20  # how far below its input a worked example's output may start

_INLINE_LABEL = re.compile(r"[A-Za-z][A-Za-z0-9 #]{0,24}[:=] ?")  # "Input: ", "Sample Output 1: "
# a label line: "Input", "-----Sample Input 2-----", "Example output:", "Input: 16" (inline)
_LABEL_LINE = re.compile(
    r"(?i)^[\W_]*(?:(?:sample|example|expected|test)s?\s*(?:case\s*)?)?(input|output)s?\b[^A-Za-z]{0,12}$"
)
_FILLER = re.compile(r"^[\W_]*$")  # ``` fences, ----- rules (blank lines are skipped already)


class StdioStatement:
    """A statement's non-blank lines and their labels, read once; each case's blocks are then
    found by a text search of the whole block."""

    def __init__(self, statement: str) -> None:
        self.lines = _lines(statement)
        kinds = [_label_kind(line) for line in self.lines]
        self.labelled = "input" in kinds and "output" in kinds
        self.inputs_before = [0]  # input labels among lines[:i], to ask "any between?" in O(1)
        for kind in kinds:
            self.inputs_before.append(self.inputs_before[-1] + (kind == "input"))
        self.headings = _headings(self.lines, kinds)
        self._text = "\n" + "\n".join(self.lines) + "\n"
        self._line_at: dict[int, int] = {}  # the offset of the newline before a line -> its index
        offset = 0
        for at, line in enumerate(self.lines):
            self._line_at[offset] = at
            offset += len(line) + 1
        self._after_label: defaultdict[str, list[int]] = defaultdict(list)  # "Input: 16" under "16"
        for at, line in enumerate(self.lines):
            label = _INLINE_LABEL.match(line)
            if label is not None and line[label.end() :]:
                self._after_label[line[label.end() :]].append(at)
        self._answers: dict[tuple[tuple[str, ...], tuple[str, ...]], bool] = {}

    def shows(self, case_input: str, expected: str) -> bool:
        """Whether the statement works this case: its input block, then in the same example its
        output block. A number that merely occurs in the text ("Example 1") is not an example."""
        want_in, want_out = _lines(case_input), _lines(expected)
        if not want_in or not want_out:
            return False
        key = (tuple(want_in), tuple(want_out))
        if key not in self._answers:
            self._answers[key] = self._shows(want_in, want_out)
        return self._answers[key]

    def _shows(self, want_in: list[str], want_out: list[str]) -> bool:
        starts = self._blocks(want_in, "input")
        outputs = self._blocks(want_out, "output") if starts else []
        pairs: list[tuple[int, int]] = []  # (input start, output start), the output in the window
        if len(starts) <= len(outputs):  # walk the rarer block, bisect the other
            for start in starts:
                below = start + len(want_in)
                first = bisect.bisect_left(outputs, below)
                last = bisect.bisect_left(outputs, below + EXAMPLE_WINDOW_LINES)
                pairs.extend((start, at) for at in outputs[first:last])
        else:
            for at in outputs:
                first = bisect.bisect_left(starts, at - EXAMPLE_WINDOW_LINES + 1 - len(want_in))
                last = bisect.bisect_right(starts, at - len(want_in))
                pairs.extend((start, at) for start in starts[first:last])
        return any(
            not self.labelled or self.inputs_before[at] == self.inputs_before[start + len(want_in)]
            for start, at in pairs
        )

    def _blocks(self, wanted: list[str], heading: str) -> list[int]:
        """The sorted line positions where `wanted` starts (its first line may follow an inline
        label), under a `heading` label where the statement labels its examples."""
        found = set()
        needle = "\n" + "\n".join(wanted) + "\n"
        offset = self._text.find(needle)
        while offset >= 0:
            found.add(self._line_at[offset])
            offset = self._text.find(needle, offset + 1)
        for at in self._after_label.get(wanted[0], ()):
            if self.lines[at + 1 : at + len(wanted)] == wanted[1:]:
                found.add(at)
        return sorted(at for at in found if not self.labelled or self.headings[at] == heading)


def stdio_shown(case_input: str, expected: str, statement: str | StdioStatement) -> bool:
    """`StdioStatement(statement).shows(case_input, expected)`, the statement read once for a run of
    cases."""
    if isinstance(statement, str):
        statement = _read(statement)
    return statement.shows(case_input, expected)


@functools.lru_cache(maxsize=8)
def _read(statement: str) -> StdioStatement:
    return StdioStatement(statement)


def _lines(text: str) -> list[str]:
    """The non-blank lines, whitespace inside each collapsed."""
    return [line for line in (" ".join(raw.split()) for raw in text.splitlines()) if line]


def _label_kind(line: str) -> str | None:
    """ "input" or "output" when the line is (or starts with) such a label, else None."""
    match = _LABEL_LINE.match(line)
    if match is None:
        inline = _INLINE_LABEL.match(line)
        match = _LABEL_LINE.match(inline.group().strip()) if inline else None
    return match.group(1).lower() if match else None


def _headings(lines: list[str], kinds: list[str | None]) -> list[str | None]:
    """For each line, the label a block starting there sits under: one on its own line, else the
    nearest line above that is not filler."""
    headings: list[str | None] = []
    above: str | None = None  # the kind of the last line that is not filler
    for line, kind in zip(lines, kinds, strict=True):
        headings.append(kind if kind is not None else above)
        if kind is not None or not _FILLER.match(line):
            above = kind
    return headings
