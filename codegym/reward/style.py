"""The `style` component: ruff findings on the lines the model wrote, one ruff process per batch.

Findings are taken per line of code the model wrote (`code_lines`): comments, blank lines,
docstrings and other bare strings are not code, and findings on them do not count either, so adding
them neither dilutes the findings on the code nor costs anything.

A naming finding about a name the task itself uses (its prompt, starter, entry point or visible
tests: MBPP's `find_Max_Num`, LeetCode's `maxProfit(self, transactionFee)`) never counts: no correct
program can avoid it."""

from __future__ import annotations

import ast
import contextlib
import io
import json
import os
import re
import subprocess
import sys
import tempfile
import token
import tokenize
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from codegym.sandbox.precompile import AST_LOCK

# pep8-naming findings located at the name they are about (a definition, a parameter, an assignment)
_NAMING_CODES = frozenset({"N801", "N802", "N803", "N806", "N815", "N816", "N818"})
_IDENTIFIER = re.compile(r"[^\W\d]\w*")


@dataclass(frozen=True)
class StyleReport:
    findings: tuple[str, ...]  # "CODE:line" for findings on generated lines
    code_lines: int  # generated lines that hold code (code_line_count)

    def score(self, scale: float, max_lines: int | None = None) -> float:
        """1 / (1 + scale * findings / lines): 1 for clean code, 0.5 at one finding per
        `lines / scale` lines of code; 0 when the model wrote no code. lines = code_lines, at most
        `max_lines` (see `line_allowance`): lines of code beyond it dilute nothing."""
        if self.code_lines == 0:
            return 0.0
        lines = self.code_lines if max_lines is None else min(self.code_lines, max_lines)
        return 1.0 / (1.0 + scale * len(self.findings) / lines)


# A program's own length is the denominator of its findings, so statements that do nothing (`_ = 0`
# a thousand times) would dilute them: lines of code count up to this many times the reference's.
LINES_PER_REFERENCE_LINE = 3
MIN_LINE_ALLOWANCE = 20


def line_allowance(reference_code_lines: int | None) -> int | None:
    """The most lines of code a program's findings are spread over, given its reference's (None:
    no reference, no cap)."""
    if reference_code_lines is None:
        return None
    return max(LINES_PER_REFERENCE_LINE * reference_code_lines, MIN_LINE_ALLOWANCE)


def ruff_executable() -> str:
    candidate = Path(sys.executable).with_name("ruff")
    return str(candidate) if candidate.exists() else "ruff"


def _scratch_parent() -> str | None:
    """Memory-backed /dev/shm when usable: creating and deleting hundreds of small files per batch
    on a disk filesystem (ext4's inode allocator) costs more than the ruff run itself."""
    shm = "/dev/shm"
    return shm if os.path.isdir(shm) and os.access(shm, os.W_OK | os.X_OK) else None


# tokens that hold no code: layout, comments, and the text inside a (3.12+) f-string
_NOT_CODE = frozenset(
    getattr(tokenize, name)
    for name in ("COMMENT", "NL", "NEWLINE", "INDENT", "DEDENT", "ENDMARKER", "FSTRING_MIDDLE", "FSTRING_END")
    if hasattr(tokenize, name)
)

# CPython 3.11's own tokenizer, as an iterator of (text, type, line, end line, byte column, end byte
# column, line text); it leaves out comments and blank lines. The tokenize module is pure Python
# there (the C one backs it from 3.12, where the iterator takes other arguments).
_C_TOKENS = None
if sys.version_info[:2] == (3, 11):
    with contextlib.suppress(ImportError):
        from _tokenize import TokenizerIter as _C_TOKENS  # type: ignore[import-not-found, no-redef]
_C_NOT_CODE = frozenset((token.ENDMARKER, token.NEWLINE, token.INDENT, token.DEDENT, token.NL, token.COMMENT))


def _token_starts(code: str) -> Iterator[tuple[int, int, bool]]:
    """(line, column, holds code) of each token as tokenize finds them; columns are UTF-8 byte
    offsets (the AST's) when `_C_TOKENS`, characters otherwise."""
    if _C_TOKENS is not None:  # 3.11's C tokenizer: ~3x faster than the tokenize module, same tokens
        for _, kind, line, _, column, _, _ in _C_TOKENS(code):
            yield line, column, kind not in _C_NOT_CODE
        return
    for found in tokenize.generate_tokens(io.StringIO(code).readline):
        yield found.start[0], found.start[1], found.type not in _NOT_CODE


def code_lines(code: str, tree: ast.Module | None = None) -> frozenset[int] | None:
    """The lines that hold code: those on which a token of a statement begins, or an expression
    inside an f-string. Blank and comment-only lines, the inner lines of a multi-line string (its
    text), and bare string statements (docstrings, strings standing alone anywhere) are not code.
    None when the code does not parse. `tree`: the code's own tree, when the caller parsed it."""
    try:
        tree = ast.parse(code) if tree is None else tree
        source_lines = code.split("\n")

        def position(line: int, byte_column: int) -> tuple[int, int]:
            """The AST's (line, UTF-8 byte offset) in the tokens' columns."""
            if _C_TOKENS is not None:
                return line, byte_column
            text = source_lines[line - 1] if 0 < line <= len(source_lines) else ""
            return line, len(text.encode("utf-8", "surrogatepass")[:byte_column].decode("utf-8", "ignore"))

        strings, formatted = [], []  # one walk for both
        for node in ast.walk(tree):
            if isinstance(node, ast.Expr):
                if isinstance(node.value, ast.Constant) and isinstance(node.value.value, str | bytes):
                    strings.append(node)
            elif isinstance(node, ast.FormattedValue):
                formatted.append(node)
        text_spans = sorted(  # disjoint: a bare string statement holds no other statement
            (position(node.lineno, node.col_offset), position(node.end_lineno, node.end_col_offset))
            for node in strings
        )
        lines, span = set(), 0
        for line, column, is_code in _token_starts(code):
            if not is_code:
                continue
            start = (line, column)
            while span < len(text_spans) and text_spans[span][1] <= start:
                span += 1
            if not (span < len(text_spans) and text_spans[span][0] <= start):
                lines.add(line)
        # the expressions inside an f-string are code on whatever line they stand (before 3.12 the
        # whole f-string is one token, so a multi-line one's inner lines begin no token)
        for node in formatted:
            lines.update(inner.lineno for inner in ast.walk(node) if hasattr(inner, "lineno"))
        return frozenset(lines)
    except (SyntaxError, ValueError, RecursionError, MemoryError, tokenize.TokenError):
        return None


def code_line_count(code: str, first_generated_line: int, lines: frozenset[int] | None = None) -> int:
    """How many generated lines hold code (`code_lines`; pass them when known). Code that does not
    parse counts its non-blank lines that are not comments."""
    lines = code_lines(code) if lines is None else lines
    if lines is not None:
        return sum(1 for line in lines if line >= first_generated_line)
    generated = code.splitlines()[first_generated_line - 1 :]
    return sum(1 for line in generated if line.strip() and not line.lstrip().startswith("#"))


def required_names(*texts: str | None) -> frozenset[str]:
    """The identifiers a task's own texts use: names a correct program may have to define as they are."""
    return frozenset(name for text in texts if text for name in _IDENTIFIER.findall(text))


def _names_a_required_name(code: str, item: dict, required: frozenset[str]) -> bool:
    if item.get("code") not in _NAMING_CODES or not required:
        return False
    location = item.get("location") or {}
    lines = code.splitlines()
    row, column = int(location.get("row") or 0), int(location.get("column") or 0)
    if not 1 <= row <= len(lines) or column < 1:
        return False
    name = _IDENTIFIER.match(lines[row - 1], column - 1)
    return name is not None and name.group() in required


def style_reports(
    samples: Sequence[tuple[str, int]],
    ruff_config: str,
    required: Sequence[frozenset[str]] | None = None,
    trees: Sequence[ast.Module | None] | None = None,
) -> list[StyleReport]:
    """One report per (code, first generated line); ruff runs once over the whole batch. `required`
    (one set per sample) holds the names its task fixes: naming findings about them do not count.
    `trees` (one per sample, None where the code does not parse) spares parsing each again."""
    if not samples:
        return []
    with tempfile.TemporaryDirectory(prefix="codegym-style-", dir=_scratch_parent()) as directory:
        root = Path(directory)
        for index, (code, _) in enumerate(samples):
            (root / f"sample_{index}.py").write_text(code, encoding="utf-8")
        completed = subprocess.run(
            [
                ruff_executable(),
                "check",
                "--no-cache",
                "--exit-zero",
                "--output-format",
                "json",
                # the program's own suppression comments would otherwise decide what is found
                "--ignore-noqa",
                "--config",
                ruff_config,
                "--force-exclude",
                ".",
            ],
            cwd=root,
            capture_output=True,
            text=True,
            timeout=300,
            check=False,
        )
        if completed.returncode != 0:
            raise RuntimeError(f"ruff failed ({completed.returncode}): {completed.stderr.strip()[:500]}")
        findings: dict[int, list[str]] = {i: [] for i in range(len(samples))}
        # findings about text that is not code (a comment, a docstring, a blank line) do not count,
        # as such lines do not count as lines: neither can move the score (code that does not
        # parse keeps every finding, its syntax error first of all)
        with AST_LOCK:  # it parses: never at the same time as another thread (see precompile)
            if trees is None:
                lines = [code_lines(code) for code, _ in samples]
            else:  # a sample without a tree does not parse: no lines, as code_lines would find
                lines = [
                    code_lines(code, tree) if tree is not None else None
                    for (code, _), tree in zip(samples, trees, strict=True)
                ]
        for item in json.loads(completed.stdout or "[]"):
            index = int(Path(item["filename"]).stem.split("_")[1])
            row = int((item.get("location") or {}).get("row") or 0)
            if required is not None and _names_a_required_name(samples[index][0], item, required[index]):
                continue
            if row >= samples[index][1] and (lines[index] is None or row in lines[index]):
                findings[index].append(f"{item.get('code') or 'syntax-error'}:{row}")
    return [
        StyleReport(tuple(findings[i]), code_line_count(code, first, lines[i]))
        for i, (code, first) in enumerate(samples)
    ]
