"""Worked examples of a call printed as a table (red team 15 R3), as Codewars often does:

    | n  | square(n) |          Input | Output
    |----|-----------|          :---  | ---:
    | 3  | 9         |          3     | 9

A table is a header row, a delimiter row of dashes, then rows with as many cells. In each row the
last cell is the answer and the cells before it the arguments (one cell may hold several: `3, 4`).
A row is one example; nothing is matched across rows, and pipes without a delimiter row are no table.
"""

from __future__ import annotations

import re

from codegym.tasks.formats.call_values import Example, arguments_of

_DELIMITER_CELL = re.compile(r":?-+:?")


def _is_delimiter(line: str) -> bool:
    """A row of dash cells (`|---|:--:|`), read cell by cell: one regex over the whole line
    backtracked on long runs of blanks (red team 17, T5: 18 s for one row)."""
    line = line.strip()
    if "|" not in line or "-" not in line:
        return False
    cells = line.removeprefix("|").removesuffix("|").split("|")
    return len(cells) >= 2 and all(_DELIMITER_CELL.fullmatch(cell.strip()) for cell in cells)


def table_examples(statement: str) -> list[Example]:
    """Every row of every table of the statement that reads as (arguments, answer)."""
    found = []
    lines = statement.splitlines()
    at = 1
    while at < len(lines):
        width = len(_cells(lines[at]))
        if not _is_delimiter(lines[at]) or len(_cells(lines[at - 1])) != width:  # a header row too
            at += 1
            continue
        at += 1
        # each line is read once: a body ends where a line has another width or a delimiter row
        # starts another table (red team 15 R5)
        while at < len(lines) and len(cells := _cells(lines[at])) == width and not _is_delimiter(lines[at]):
            example = _row_example(cells)
            if example is not None:
                found.append(example)
            at += 1
    return found


def _cells(line: str) -> list[str]:
    line = line.strip()
    if "|" not in line:
        return []
    line = line.removeprefix("|").removesuffix("|")
    return [cell.replace("`", "").strip() for cell in line.split("|")]


def _row_example(cells: list[str]) -> Example | None:
    arguments = []
    for cell in cells[:-1]:
        values = arguments_of(cell)
        if not values:
            return None
        arguments.extend(values)
    answer = arguments_of(cells[-1])
    if answer is None or len(answer) != 1:
        return None
    return arguments, answer[0]
