"""Render ranked definitions and the local window into text that fits a token budget.

Layout: ranked definitions grouped by file (`# file: path`), methods under their class's header line,
then the current file's window ending right before the hole, so the text can be followed directly by
the code being written. Tiers: the few best definitions with short bodies are shown whole ("full"),
the next ones as header + docstring summary ("doc"), the rest as bare headers ("signature").
Token counts are additive estimates while choosing; the final text is counted once more and trimmed
until it fits, so the budget is never exceeded by the counter in use.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from codegym.context.graph import RepoGraph, Sym
from codegym.context.model import MODULE_SCOPE, ChosenSymbol, Definition
from codegym.context.rank import Hole
from codegym.context.tokens import TokenCounter

INDENT = "    "
MAX_DOC_LINES = 4
MAX_FULL_ITEMS = 3
MAX_FULL_LINES = 40
MAX_VALUE_CHARS = 160
MAX_INIT_LINES = 6


@dataclass(frozen=True)
class RenderOptions:
    window_fraction: float = 0.25  # share of the budget for the local window (it may use less)
    include_window: bool = True
    max_candidates: int = 400  # ranked candidates considered before giving up on filling the budget
    core_fraction: float = 0.3  # candidates scoring this share of the best get a header before any detail
    max_detailed: int = 4  # at most this many get a docstring or whole body; headers are what carry recall


@dataclass
class _Item:
    sym: Sym
    score: float
    tier: str
    text: str  # dedented, without container indentation
    cost: int


def _dedent(text: str, column: int) -> str:
    lines = text.split("\n")
    out = [lines[0]]
    for line in lines[1:]:
        prefix = len(line) - len(line.lstrip(" \t"))
        out.append(line[min(prefix, column) :])
    return "\n".join(out)


def _indent(text: str, depth: int) -> str:
    if depth == 0:
        return text
    pad = INDENT * depth
    return "\n".join(pad + line if line else line for line in text.split("\n"))


def _src(graph: RepoGraph, path: str, start: int, end: int) -> str:
    return graph.sources[path][start:end].decode("utf-8", "replace")


def _doc_summary(raw: str) -> str:
    """First paragraph of a docstring literal, at most MAX_DOC_LINES lines, re-quoted."""
    body = raw
    for quote in ('"""', "'''", '"', "'"):
        start = body.find(quote)
        if start >= 0 and start <= 3:  # after an optional r/u/b prefix
            body = body[start + len(quote) :]
            end = body.rfind(quote)
            body = body[:end] if end >= 0 else body
            break
    lines = [line.strip() for line in body.strip().split("\n")]
    summary: list[str] = []
    for line in lines:
        if not line:
            break
        summary.append(line)
        if len(summary) >= MAX_DOC_LINES:
            summary.append("...")
            break
    text = "\n".join(summary).replace('"""', "'''")
    return f'"""{text}"""' if text else ""


def header_text(graph: RepoGraph, sym: Sym) -> str:
    """`def name(...) -> T:` / `class Name(Base):` with decorators, dedented; assignments shortened."""
    d = _def(graph, sym)
    if d.kind in ("function", "method", "class"):
        return _dedent(_src(graph, sym.path, d.start_byte, d.header_end).rstrip(), d.column)
    return _short_assignment(graph, sym.path, d)


def _short_assignment(graph: RepoGraph, path: str, d: Definition) -> str:
    text = _dedent(_src(graph, path, d.start_byte, d.end_byte).rstrip(), d.column)
    if len(text) <= MAX_VALUE_CHARS and text.count("\n") < 3:
        return text
    first = text.split("\n", 1)[0]
    return first[:MAX_VALUE_CHARS].rstrip() + " ..."


def _def(graph: RepoGraph, sym: Sym) -> Definition:
    d = graph.definition(sym)
    assert d is not None
    return d


def render_item(graph: RepoGraph, sym: Sym, tier: str) -> str:
    d = _def(graph, sym)
    if tier == "full":
        return _dedent(_src(graph, sym.path, d.start_byte, d.end_byte).rstrip(), d.column)
    header = header_text(graph, sym)
    if d.kind not in ("function", "method", "class"):
        return header
    parts = [header]
    if tier == "doc" and d.doc_start >= 0:
        summary = _doc_summary(_src(graph, sym.path, d.doc_start, d.doc_end))
        if summary:
            parts.append(_indent(summary, 1))
    if d.kind == "class" and tier == "doc":
        init = graph.index[sym.path].members.get(sym.index, {}).get("__init__")
        if init is not None:
            init_header = header_text(graph, Sym(sym.path, init))
            if init_header.count("\n") < MAX_INIT_LINES:  # long constructors would crowd out whole symbols
                parts.append(_indent(init_header + " ...", 1))
    if len(parts) == 1:
        return header + " ..."
    return "\n".join(parts)


def _containers(graph: RepoGraph, sym: Sym) -> list[Sym]:
    """Enclosing classes of a member, outermost first."""
    chain = []
    d = _def(graph, sym)
    while d.parent != MODULE_SCOPE:
        parent = Sym(sym.path, d.parent)
        chain.insert(0, parent)
        d = _def(graph, parent)
    return chain


def file_label(path: str) -> str:
    return f"# file: {path}"


def assemble(graph: RepoGraph, items: Sequence[_Item]) -> str:
    """Group chosen items by file (best file first), members under class headers, source order within."""
    by_file: dict[str, list[_Item]] = {}
    for item in sorted(items, key=lambda it: -it.score):
        by_file.setdefault(item.sym.path, []).append(item)
    blocks = []
    for path, file_items in by_file.items():
        lines = [file_label(path)]
        opened: list[Sym] = []  # classes whose header is printed, outermost first
        with_members = {c for it in file_items for c in _containers(graph, it.sym)}
        for item in sorted(file_items, key=lambda it: _def(graph, it.sym).start_byte):
            containers = _containers(graph, item.sym)
            common = 0
            while common < min(len(opened), len(containers)) and opened[common] == containers[common]:
                common += 1
            opened = opened[:common]
            for depth in range(common, len(containers)):
                lines.append(_indent(header_text(graph, containers[depth]), depth))
                opened.append(containers[depth])
            text = item.text
            if item.tier == "signature" and item.sym in with_members and text.endswith(" ..."):
                text = text[: -len(" ...")]  # its members follow as the class body
            lines.append(_indent(text, len(containers)))
            if _def(graph, item.sym).kind == "class":
                opened = [*containers, item.sym]  # its chosen members go under the class item itself
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


class _Selection:
    """Chosen items and the budget left, with the per-file / per-class label costs paid once."""

    def __init__(self, graph: RepoGraph, budget: int, count: TokenCounter) -> None:
        self.graph = graph
        self.count = count
        self.left = budget
        self.items: dict[Sym, _Item] = {}
        self.files_open: set[str] = set()
        self.containers_open: set[Sym] = set()

    def overhead(self, sym: Sym) -> tuple[int, list[Sym]]:
        cost = 0 if sym.path in self.files_open else self.count(file_label(sym.path)) + 2
        new = [c for c in _containers(self.graph, sym) if c not in self.containers_open]
        cost += sum(self.count(header_text(self.graph, c)) + 1 for c in new)
        return cost, new

    def add(self, sym: Sym, score: float, tier: str) -> bool:
        overhead, new = self.overhead(sym)
        text = render_item(self.graph, sym, tier)
        cost = self.count(text) + 1
        if cost + overhead > self.left:
            return False
        self.items[sym] = _Item(sym, score, tier, text, cost)
        self.left -= cost + overhead
        self.files_open.add(sym.path)
        self.containers_open.update(new)
        if _def(self.graph, sym).kind == "class":
            self.containers_open.add(sym)
        return True

    def upgrade(self, sym: Sym, tier: str, max_cost: int | None = None) -> bool:
        item = self.items[sym]
        text = render_item(self.graph, sym, tier)
        cost = self.count(text) + 1
        extra = cost - item.cost
        if extra > self.left or (max_cost is not None and cost > max_cost):
            return False
        self.items[sym] = _Item(sym, item.score, tier, text, cost)
        self.left -= extra
        return True


def choose(
    graph: RepoGraph,
    ranked: Sequence[tuple[Sym, float]],
    budget: int,
    count: TokenCounter,
    options: RenderOptions,
) -> list[_Item]:
    """Coverage first, detail second.

    1. headers of every candidate scoring at least `core_fraction` of the best, best first;
    2. upgrades in rank order: whole source for the best few short ones, else docstring summaries;
    3. more headers further down the ranking while room is left.
    """
    sel = _Selection(graph, budget, count)
    candidates = list(ranked[: options.max_candidates])
    if not candidates:
        return []
    top = candidates[0][1]
    core = [(sym, score) for sym, score in candidates if score >= options.core_fraction * top]
    for sym, score in core:
        if sel.left <= 8:
            break
        sel.add(sym, score, "signature")
    full = 0
    for sym, score in core[: options.max_detailed]:
        if sym not in sel.items or sel.left <= 8:
            continue
        d = _def(graph, sym)
        if (
            full < MAX_FULL_ITEMS
            and d.kind not in ("class", "constant", "variable", "attribute")
            and score >= 0.5 * top
            and d.end_line - d.start_line < MAX_FULL_LINES
            and sel.upgrade(sym, "full", max_cost=max(1, budget // 4))
        ):
            full += 1
            continue
        if d.kind in ("function", "method", "class"):
            sel.upgrade(sym, "doc")
    for sym, score in candidates[len(core) :]:
        if sel.left <= 8:
            break
        sel.add(sym, score, "signature")
    return list(sel.items.values())


def window(graph: RepoGraph, hole: Hole, budget: int, count: TokenCounter) -> tuple[str, tuple[int, int]]:
    """The current file's lines right before the hole, as many as fit `budget` (sliding upwards)."""
    if budget <= 0:
        return "", (0, 0)
    source = graph.sources[hole.path].decode("utf-8", "replace")
    lines = source.split("\n")
    end = min(hole.line - 1, len(lines))  # lines 1..end precede the hole
    label = f"# file: {hole.path} (current file, up to line {end})"
    used = count(label) + 1
    if used > budget:
        return "", (0, 0)
    start = end + 1
    while start > 1:
        cost = count(lines[start - 2]) + 1
        if used + cost > budget:
            break
        used += cost
        start -= 1
    if start > end:
        return "", (0, 0)
    return label + "\n" + "\n".join(lines[start - 1 : end]), (start, end)


def symbols_of(graph: RepoGraph, items: Sequence[_Item]) -> tuple[ChosenSymbol, ...]:
    out = []
    for it in sorted(items, key=lambda it: -it.score):
        d = _def(graph, it.sym)
        out.append(ChosenSymbol(it.sym.path, d.kind, d.qualname, it.score, it.tier, d.start_line))  # type: ignore[arg-type]
    return tuple(out)
