"""Typed objects of codegym.context: what a parsed file holds and what a context query returns.

Everything a parsed file stores is path-independent (offsets into its own bytes, relative import
levels), so the parse cache can key it by content hash alone; module names and resolution are the
graph's job (`codegym.context.graph`).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal, NamedTuple

DefKind = Literal["function", "method", "class", "constant", "variable", "attribute"]

MODULE_SCOPE = -1  # scope index of a file's module level


@dataclass(frozen=True)
class Definition:
    """A function, class, method or assigned name, with byte offsets into its file's source."""

    name: str
    qualname: str  # dotted within the module: "Console.print", "outer.inner"
    kind: DefKind
    parent: int  # index of the enclosing definition in ParsedFile.definitions, MODULE_SCOPE if none
    start_byte: int  # decorators included
    header_end: int  # end of the `def ...:` / `class ...:` header; end of the statement for names
    doc_start: int  # docstring literal byte range, (-1, -1) when there is none
    doc_end: int
    end_byte: int
    start_line: int  # 1-based, inclusive
    end_line: int
    body_line: int  # first line of the body (the line after the header for one-line-header defs)
    column: int  # column of the def keyword / name, to dedent when rendering
    bases: tuple[str, ...] = ()  # superclass expressions of a class, dotted text ("Base", "mod.Base")
    # decorator expressions without `@` and call arguments: ("property",), ("name.setter",), ("dataclass",)
    decorators: tuple[str, ...] = ()


@dataclass(frozen=True)
class ImportBinding:
    """One name an import statement binds: `import a.b` binds `a`; `from .m import x as y` binds `y`."""

    local: str
    module: str  # dotted module path without the leading dots of a relative import
    level: int  # 0 absolute, 1 for `.`, 2 for `..`
    name: str | None  # imported attribute for `from m import name`; None for `import m`
    scope: int  # MODULE_SCOPE or the index of the function/class whose body holds the import
    line: int
    binds_top: bool = False  # `import a.b.c` without alias binds the top package `a`
    star: bool = False  # `from m import *`


class Reference(NamedTuple):
    """A load of a name or of an attribute chain rooted at a name (`os.path.join`, `self.flush`).

    A NamedTuple rather than a dataclass: files hold tens of thousands and creation cost matters.
    """

    chain: tuple[str, ...]
    scope: int
    line: int
    byte: int
    is_call: bool


@dataclass(frozen=True)
class Scope:
    """Names bound by one function or class body (parameters, assignments, nested defs, imports)."""

    bound: frozenset[str]
    globals: frozenset[str] = frozenset()
    nonlocals: frozenset[str] = frozenset()
    first_param: str | None = None  # `self` / `cls` of a method


@dataclass(frozen=True)
class ParsedFile:
    """What codegym.context extracts from one Python source file (keyed by content hash)."""

    content_hash: str
    definitions: tuple[Definition, ...]
    imports: tuple[ImportBinding, ...]
    references: tuple[Reference, ...]
    scopes: dict[int, Scope]  # definition index of each function/class -> its scope
    module_bound: frozenset[str]  # names bound at module level by anything but defs and imports
    dunder_all: tuple[str, ...] | None  # `__all__` when it is a literal list/tuple of strings
    has_errors: bool  # tree-sitter found syntax errors; what parsed is still used
    line_count: int


@dataclass(frozen=True)
class ChosenSymbol:
    """One definition the context carries, with how it was rendered."""

    path: str
    kind: str
    name: str  # qualname within the module
    score: float
    # whole source / signature + docstring summary / full signature (a class: with its constructor) /
    # compact: parameter names only, a class header, an assignment with its value elided
    rendered: Literal["full", "doc", "signature", "name"]
    line: int

    def to_dict(self) -> dict[str, object]:
        return {
            "path": self.path,
            "kind": self.kind,
            "name": self.name,
            "score": round(self.score, 4),
            "rendered": self.rendered,
            "line": self.line,
        }


@dataclass(frozen=True)
class Context:
    """The budgeted context for one hole: prompt-ready text plus what went into it."""

    text: str
    token_count: int
    budget: int
    symbols: tuple[ChosenSymbol, ...] = ()
    file: str = ""
    line: int = 0
    window_lines: tuple[int, int] = (0, 0)  # 1-based inclusive range of the local window, (0, 0) if none
    counter: str = "estimate"  # how tokens were counted: "estimate" or the tokenizer's name
    timings_ms: dict[str, float] = field(default_factory=dict)

    def to_dict(self) -> dict[str, object]:
        return {
            "file": self.file,
            "line": self.line,
            "budget": self.budget,
            "token_count": self.token_count,
            "counter": self.counter,
            "window_lines": list(self.window_lines),
            "symbols": [s.to_dict() for s in self.symbols],
            "timings_ms": {k: round(v, 2) for k, v in self.timings_ms.items()},
            "text": self.text,
        }
