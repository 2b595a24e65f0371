"""Values written in a statement's text, read as Python reads literals: a call's argument list
(`[1,2], 3`, `nums = [1,2], k = 3`), one value at a place (`[ 1, 2 ]`, `'ab'`, `true`), and
equality as data (a tuple equals a list, True is not 1)."""

from __future__ import annotations

import ast
import re
from typing import Any

MAX_LITERAL_CHARS = 5000  # a bracketed value longer than this is no example anyone reads
SCAN_STEPS_PER_CHAR = 20  # what reading a statement's bracketed values may cost, at most

_PAIRS = {"[": "]", "(": ")", "{": "}"}
_CLOSERS = frozenset(_PAIRS.values())
_STRING_OR_JS_WORD = re.compile(r"""("(?:\\.|[^"\\\n])*"|'(?:\\.|[^'\\\n])*')|\b(true|false|null)\b""")
_JS_WORDS = {"true": "True", "false": "False", "null": "None"}
_SCALAR = re.compile(
    r"-?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?(?![\w.])|(?:True|False|None|true|false|null)\b"
)

Example = tuple[list[Any], Any]  # (the arguments, the answer)


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


class Values:
    """The values written in one text. A scan for the end of a bracketed value memoises the end of
    every inner bracket it closes (or finds never closed) and jumps over inner brackets whose end is
    known, so reading every `f(` of a text is about linear (red team 15 R5: `f(` x 8,000 rescanned
    5,000 characters each, 2.4 s). What is left (a start that an earlier scan read inside quotes)
    shares one budget of SCAN_STEPS_PER_CHAR steps a character."""

    def __init__(self, text: str) -> None:
        self.text = text
        self._ends: dict[int, int] = {}  # an opening bracket -> its value's end, or -1
        self._budget = SCAN_STEPS_PER_CHAR * len(text) + 10_000

    def literal_at(self, start: int) -> list[Any] | None:
        """The one value written at `start` (`[ 1, 2 ]`, `'ab'`, `-3.5`, `true`) as `[value]`, or None."""
        text = self.text
        if text[start : start + 1] in ("[", "(", "{", '"', "'"):
            end = self.closing(start)
        else:
            match = _SCALAR.match(text, start)
            end = match.end() if match else -1
        if end < 0:
            return None
        values = arguments_of(text[start:end])
        return values if values is not None and len(values) == 1 else None

    def closing(self, start: int) -> int:
        """The end of the bracketed or quoted value that opens at `start` (at most MAX_LITERAL_CHARS
        long), or -1."""
        end = self._ends.get(start)
        if end is None:
            end = self._scan(start)
        return end if end - start <= MAX_LITERAL_CHARS else -1

    def _scan(self, start: int) -> int:
        text = self.text
        opened: list[int] = []  # brackets open outside quotes, innermost last
        quote = ""
        at = start
        while at < len(text):
            if self._budget <= 0:
                return -1  # not memoised: another start may still be read
            self._budget -= 1
            char = text[at]
            if quote:
                if char == "\\":
                    at += 2
                    continue
                if char == quote:
                    quote = ""
                    if not opened:
                        return at + 1
            elif char in "\"'":
                quote = char
            elif char in _PAIRS:
                known = self._ends.get(at)
                if known is None:
                    opened.append(at)
                elif known < 0:  # it never closes, so neither does anything around it
                    break
                else:
                    at = known  # the same scan from there, done already
                    continue
            elif char in _CLOSERS:
                if not opened or _PAIRS[text[opened[-1]]] != char:
                    break
                self._ends[opened.pop()] = at + 1
                if not opened:
                    return at + 1
            at += 1
        for bracket in opened:  # a wrong closer or the end of the text: final for each of them
            self._ends[bracket] = -1
        return -1


def literal_at(text: str, start: int) -> list[Any] | None:
    """The one value written at `start` of `text` as `[value]`, or None (see `Values`)."""
    return Values(text).literal_at(start)
