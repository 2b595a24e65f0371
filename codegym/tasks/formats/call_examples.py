"""The worked examples of a call task's statement, read as values: `f([ 1, 2 ]) == 3`,
`Input: nums = [1,2], k = 3` / `Output: [0,1]`, `>>> f(1)` then `2`, `[1, 2] -> 3`.

A case is shown only when its arguments and its answer make one such example; numbers that merely
occur in the prose ("Example 2", "2^31 - 1") never do. Values, not text, are compared, so a list
spaced as Codewars (`[ 1, 2 ]`) or LeetCode (`[1,2]`) prints it, a tuple for a list, or
JavaScript's `true`/`null` all count (red team 14 P3, false-flag round 14 Q7a).
"""

from __future__ import annotations

import ast
import re
from collections.abc import Sequence
from typing import Any

MAX_LITERAL_CHARS = 5000  # a bracketed value longer than this is no example anyone reads
MAX_SEPARATOR_CHARS = 40  # how far after the call its answer may start

_STRING_OR_JS_WORD = re.compile(r"""("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|\b(true|false|null)\b""")
_JS_WORDS = {"true": "True", "false": "False", "null": "None"}
_SCALAR = re.compile(
    r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?![\w.])|(?:True|False|None|true|false|null)\b"
)
_CALL = re.compile(r"(?<!\w)[A-Za-z_]\w*\s*\(")
_ASSERT_BEFORE = re.compile(r"(?i)(?:assert\w*|equals?)\s*\(\s*$")  # assert_equals(f(1), 2)
_SEPARATOR = re.compile(
    r"(?:[\s`*]|={2,3}|=>|-+>|[→➞⟶⇒]|[=:#]|//|\b(?:returns?|should|be|equals?|is|gives|yields)\b)*"
)
# `Input:`, `Sample Input 1:`, or a line that is only such a label
_LABEL = r"(?im)\b{0}\s*(?:#?\d+\s*)?:|^[^\w\n]*(?:sample |example )?{0}(?: ?#?\d+)?[^\w\n]*$"
_INPUT = re.compile(_LABEL.format("input"))
_OUTPUT = re.compile(_LABEL.format("output"))
_FOR_OUTPUT = re.compile(
    r"(?is)\bfor\s+([^\n]{1,300}?),?\s+the\s+(?:output|answer|result)\s+should\s+be\s*"
    r"(?:`?[\w.]+\([^()\n]*\)\s*=\s*)?"
)
_ARROW = re.compile(r"={1,2}>|-+>|[→➞⟶⇒]")
_BULLET = re.compile(r"^\s*(?:[*•]|-(?=\s)|\d+[.)](?=\s))?\s*")

Example = tuple[list[Any], Any]  # (the arguments, the answer)


def call_examples(statement: str) -> list[Example]:
    """Every worked example of a call the statement shows, as (arguments, answer) values."""
    return [*_calls(statement), *_labelled(statement), *_codesignal(statement), *_arrow_lines(statement)]


def shows_call(examples: Sequence[Example], arguments: Any, expected: Any) -> bool:
    """Whether one of `examples` is the call `arguments` -> `expected` (an answer wrapped in a
    one-element list, as Codewars publishes them, may be shown bare)."""
    arguments = list(arguments) if isinstance(arguments, (list, tuple)) else [arguments]
    if not arguments:
        return False
    answers = [expected]
    if isinstance(expected, (list, tuple)) and len(expected) == 1:
        answers.append(expected[0])
    return any(
        same(arguments, shown) and any(same(answer, value) for answer in answers) for shown, value in examples
    )


def same(a: Any, b: Any) -> bool:
    """Equal as data: a tuple equals a list, 2 equals 2.0, but True is not 1."""
    if isinstance(a, bool) or isinstance(b, bool):
        return type(a) is type(b) and a == b
    if isinstance(a, (list, tuple)) and isinstance(b, (list, tuple)):
        return len(a) == len(b) and all(same(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(same(a[key], b[key]) for key in a)
    if isinstance(a, (int, float)) and isinstance(b, (int, float)):
        return a == b
    return type(a) is type(b) and a == b


def arguments_of(text: str) -> list[Any] | None:
    """`text` read as a call's argument list (`[1,2], 3`, `nums = [1,2], k = 3`), or None."""
    source = _STRING_OR_JS_WORD.sub(lambda m: m.group(1) or _JS_WORDS[m.group(2)], text)
    try:
        node = ast.parse(f"_({source}\n)", mode="eval").body
        if not isinstance(node, ast.Call) or any(k.arg is None for k in node.keywords):
            return None
        return [ast.literal_eval(a) for a in node.args] + [ast.literal_eval(k.value) for k in node.keywords]
    except (SyntaxError, ValueError, TypeError, MemoryError, RecursionError):
        return None


def literal_at(text: str, start: int) -> list[Any] | None:
    """The one value written at `start` (`[ 1, 2 ]`, `'ab'`, `-3.5`, `true`) as `[value]`, or None."""
    if text[start : start + 1] in ("[", "(", "{", '"', "'"):
        end = _closing(text, start)
    else:
        match = _SCALAR.match(text, start)
        end = match.end() if match else -1
    if end < 0:
        return None
    values = arguments_of(text[start:end])
    return values if values is not None and len(values) == 1 else None


def _closing(text: str, start: int) -> int:
    """The end of the bracketed or quoted value that opens at `start`, or -1."""
    pairs = {"[": "]", "(": ")", "{": "}"}
    stack: list[str] = []
    quote = ""
    at = start
    for at in range(start, min(len(text), start + MAX_LITERAL_CHARS)):
        char = text[at]
        if quote:
            if char == "\\":
                continue
            if char == quote and text[at - 1] != "\\":
                quote = ""
                if not stack:
                    return at + 1
        elif char in "\"'":
            quote = char
        elif char in pairs:
            stack.append(pairs[char])
        elif char in ")]}":
            if not stack or stack.pop() != char:
                return -1
            if not stack:
                return at + 1
    return -1


def _calls(text: str) -> list[Example]:
    """`f(args) == answer` (or `=>`, `returns`, ...), a doctest's next line, `assert_equals(f(args), ans)`."""
    found = []
    for match in _CALL.finditer(text):
        end = _closing(text, match.end() - 1)
        arguments = arguments_of(text[match.end() : end - 1]) if end > 0 else None
        if not arguments:
            continue
        separator = _SEPARATOR.match(text, end)
        assert separator is not None  # it matches the empty string
        gap = separator.group()
        after = separator.end()
        if not gap.strip() and "\n" not in gap:  # `f(1) 2` is no example; `f(1), 2` only in an assert
            comma = re.compile(r"\s*,\s*").match(text, end)
            if comma is None or not _ASSERT_BEFORE.search(text, max(0, match.start() - 40), match.start()):
                continue
            after = comma.end()
        if len(gap) > MAX_SEPARATOR_CHARS:
            continue
        answer = literal_at(text, after)
        if answer is not None:
            found.append((arguments, answer[0]))
    return found


def _labelled(text: str) -> list[Example]:
    """`Input: x = 4` then `Output: 2`, with no other Input between them."""
    found = []
    inputs = list(_INPUT.finditer(text))
    for index, label in enumerate(inputs):
        output = _OUTPUT.search(text, label.end())
        following = inputs[index + 1].start() if index + 1 < len(inputs) else len(text)
        if output is None or output.start() > following:
            continue
        arguments = _segment_arguments(text[label.end() : output.start()])
        answer = literal_at(text, _skip_markup(text, output.end()))
        if arguments and answer is not None:
            found.append((arguments, answer[0]))
    return found


def _codesignal(text: str) -> list[Example]:
    """`For n = 3, the output should be f(n) = 6.`"""
    found = []
    for match in _FOR_OUTPUT.finditer(text):
        arguments = _segment_arguments(re.sub(r"\s+and\s+", ", ", match.group(1)))
        answer = literal_at(text, _skip_markup(text, match.end()))
        if arguments and answer is not None:
            found.append((arguments, answer[0]))
    return found


def _arrow_lines(text: str) -> list[Example]:
    """A line that is only `arguments -> answer` (`"abcde" -> 0`, `* [1, 2] ➞ 3`)."""
    found = []
    for line in text.splitlines():
        line = _BULLET.sub("", line.replace("`", ""), count=1)
        arrow = _ARROW.search(line)
        if arrow is None:
            continue
        arguments = arguments_of(line[: arrow.start()])
        answer = literal_at(line, _skip_markup(line, arrow.end()))
        if arguments and answer is not None:
            found.append((arguments, answer[0]))
    return found


def _segment_arguments(segment: str) -> list[Any] | None:
    """An input segment's arguments: on one line or one per line (`nums = [1,2]` / `k = 3`)."""
    segment = segment.replace("`", "").strip(" \t\n*")
    if not segment:
        return None
    arguments = arguments_of(segment)
    if arguments is None and "\n" in segment:
        arguments = arguments_of(", ".join(line for line in segment.splitlines() if line.strip()))
    return arguments


def _skip_markup(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\n`*":
        at += 1
    return at
