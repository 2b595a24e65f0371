"""Render ranked definitions and the local window into text that fits a token budget.

Layout: ranked definitions grouped by file (`# file: path`), members nested under their class's
header, then the current file's window ending right before the hole, so the text can be followed
directly by the code being written. Every definitions block is valid Python: elisions use `...`
only where the grammar allows one (a body, a call's arguments, a subscript, a container display,
an assignment's value), and each rendered piece is checked with `ast.parse` (an invalid one falls
back to a generated stub).

Tiers, cheapest first (each item is shown at one):
  name       `def f(a, b=..., *, c=...): ...` / `class C(Base): ...` / `NAME = ...`
  signature  the full header with annotations and defaults; a class adds its constructor (own,
             inherited or dataclass-style fields); an assignment its value, elided when long
  doc        signature + a one- or two-line docstring summary
  full       the whole source (short functions only)
Choosing is coverage first (every core candidate at `signature`, degraded to `name` before being left
out), detail second, then more candidates until the budget is filled; token counts are additive
estimates while choosing, and the engine recounts the assembled text exactly (`codegym.context.engine`).
"""

from __future__ import annotations

import ast
import heapq
import itertools
from collections.abc import Sequence
from dataclasses import dataclass

from codegym.context.graph import RepoGraph, Sym
from codegym.context.model import MODULE_SCOPE, ChosenSymbol, Definition
from codegym.context.rank import Hole
from codegym.context.tokens import TokenCounter

INDENT = "    "
TIERS = ("name", "signature", "doc", "full")
MAX_DOC_LINES = 2
MAX_DOC_CHARS = 200
MAX_FULL_ITEMS = 3
MAX_FULL_LINES = 40
MAX_VALUE_CHARS = 160  # an assignment longer than this (or than MAX_VALUE_LINES) has its value elided
MAX_VALUE_LINES = 3
MAX_INIT_LINES = 8  # a longer constructor header is shown in its compact (names-only) form
MAX_INIT_CHARS = 70  # ... and so is a wider one; a compact form still wider keeps its first parameters
MAX_HEADER_CHARS = 80  # a wider (or multi-line) class header has its bases reduced to their names
MAX_NAME_ANNOTATION = 24  # a longer annotation of an assignment is left out at the name tier
MAX_NAME_CHARS = 60  # a name-tier stub keeps its required parameters and what fits in this width
MAX_FIELDS = 6  # dataclass-style fields shown for a class without a constructor
_FIELD_DECORATORS = ("dataclass", "define", "frozen", "mutable", "attrs", "s", "dataclass_transform")
_FIELD_BASES = ("NamedTuple", "TypedDict", "BaseModel", "Struct")


@dataclass(frozen=True)
class RenderOptions:
    window_fraction: float = 0.25  # share of the budget for the local window (it may use less)
    include_window: bool = True
    max_candidates: int = 400  # ranked candidates considered before giving up on filling the budget
    max_detailed: int = 4  # at most this many get a docstring or whole body; signatures carry recall
    usable_value: float = 0.2  # worth of showing how to call a found definition, in shares of finding it
    detail_value: float = 0.02  # worth of annotations / a docstring / a body, in shares of being found
    name_cost: int = 14  # typical tokens of a name-tier item, until it is rendered
    min_fill: float = 0.98  # top up with more candidates while the text uses less of the budget


@dataclass
class _Item:
    sym: Sym
    score: float
    tier: str
    text: str  # dedented, without container indentation
    cost: int


# --- small text helpers --------------------------------------------------------------------------
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


def is_valid(text: str) -> bool:
    """Whether `text` parses as Python (the check every rendered piece goes through)."""
    try:
        ast.parse(text)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return False
    return True


def _def(graph: RepoGraph, sym: Sym) -> Definition:
    d = graph.definition(sym)
    assert d is not None
    return d


def _memo(graph: RepoGraph) -> dict[tuple[Sym, str], str]:
    table = graph.memo.get("render")
    if not isinstance(table, dict):
        table = {}
        graph.memo["render"] = table
    return table


# --- docstrings ----------------------------------------------------------------------------------
def _doc_summary(raw: str) -> str:
    """The first paragraph of a docstring literal (at most MAX_DOC_LINES lines) as a valid literal."""
    try:
        value = ast.literal_eval(raw)
    except (SyntaxError, ValueError, MemoryError, RecursionError):
        return ""
    if not isinstance(value, str):
        return ""
    summary: list[str] = []
    for line in value.strip().split("\n"):
        line = line.strip()
        if not line:
            break
        summary.append(line)
        if len(summary) >= MAX_DOC_LINES:
            break
    text = " ".join(summary)
    if len(text) > MAX_DOC_CHARS:
        text = text[: MAX_DOC_CHARS - 3].rstrip() + "..."
    if not text:
        return ""
    if "\\" in text or '"""' in text or text.endswith('"'):
        return repr(text)  # a plain literal with escapes is always valid
    return f'"""{text}"""'


def _docstring_of(graph: RepoGraph, sym: Sym) -> str:
    d = _def(graph, sym)
    if d.doc_start < 0:
        return ""
    return _doc_summary(_src(graph, sym.path, d.doc_start, d.doc_end))


# --- headers -------------------------------------------------------------------------------------
def header_text(graph: RepoGraph, sym: Sym) -> str:
    """`def name(...) -> T:` / `class Name(Base):` with decorators, dedented (no body, so not valid alone)."""
    d = _def(graph, sym)
    if d.kind in ("function", "method", "class"):
        return _dedent(_src(graph, sym.path, d.start_byte, d.header_end).rstrip(), d.column)
    return assignment_text(graph, sym, "signature")


def class_header(graph: RepoGraph, cls: Sym, tier: str) -> str:
    """A class's header line(s) as rendered at `tier` (no body, so not valid alone).

    At the name tier (also a class shown only as the container of chosen members) the decorators go
    and each base is reduced to its name: `class Url(typing.NamedTuple(...)):`,
    `class IntRange(_NumberRangeBase, IntParamType):` (a base's type arguments and a computed base's
    arguments cost more than the class's name and say less than its constructor); only `metaclass=`
    of the keywords stays. At the other tiers the source header, unless it is wider than
    MAX_HEADER_CHARS or spans lines: then decorators stay and the bases are reduced the same way.
    """
    memo = _memo(graph)
    compact = tier == "name"
    key = (cls, "class-header-name" if compact else "class-header")
    found = memo.get(key)
    if found is not None:
        return found
    found = header_text(graph, cls)
    lines = found.split("\n")
    first = next((k for k, line in enumerate(lines) if line.startswith("class ")), 0)
    statement = lines[first:]  # after the decorators
    if compact or len(statement) > 1 or len(statement[0]) > MAX_HEADER_CHARS:
        found = _reduced_class_header(found, keep_decorators=not compact) or found
    memo[key] = found
    return found


def _reduced_class_header(header: str, keep_decorators: bool) -> str | None:
    """`header` with each base reduced to its name (see `class_header`), or None when it cannot be."""
    try:
        node = ast.parse(header + " ...").body[0]
    except (SyntaxError, ValueError, IndexError, MemoryError, RecursionError):
        return None
    if not isinstance(node, ast.ClassDef):
        return None
    # `Generic[T]` without its parameters says nothing
    parts = [name for name in map(_base_name, node.bases) if name.rsplit(".", 1)[-1] != "Generic"]
    parts += [f"metaclass={_base_name(k.value)}" for k in node.keywords if k.arg == "metaclass"]
    line = f"class {node.name}({', '.join(parts)}):" if parts else f"class {node.name}:"
    if keep_decorators:
        line = "\n".join([*(f"@{ast.unparse(dec)}" for dec in node.decorator_list), line])
    return line if is_valid(line + " ...") else None


def _base_name(expr: ast.expr) -> str:
    """`ParamType[str]` -> `ParamType`, `typing.NamedTuple("Url", [...])` -> `typing.NamedTuple(...)`."""
    if isinstance(expr, ast.Name | ast.Attribute):
        return ast.unparse(expr)
    if isinstance(expr, ast.Subscript):
        return _base_name(expr.value)
    if isinstance(expr, ast.Call):
        head = _base_name(expr.func)
        return f"{head}(...)" if head != "..." else head
    return "..."


def stub(graph: RepoGraph, sym: Sym) -> str:
    """Header with an elided body: `def f(x: int) -> str: ...`, always valid Python."""
    memo = _memo(graph)
    key = (sym, "stub")
    found = memo.get(key)
    if found is None:
        d = _def(graph, sym)
        found = header_text(graph, sym) + " ..."
        if not is_valid(found):
            found = _fallback_stub(d)
        memo[key] = found
    return found


def _fallback_stub(d: Definition) -> str:
    """What a header we cannot reproduce becomes (a file with syntax errors in the header)."""
    if d.kind == "class":
        return f"class {d.name}: ..."
    return f"def {d.name}(*args, **kwargs): ...  # signature not parsed"


def compact_stub(graph: RepoGraph, sym: Sym, max_chars: int = 0) -> str:
    """Parameter names only: `def f(a, b=..., *args, c=..., **kw): ...` (no annotations, no defaults).

    With `max_chars`, optional parameters past that width are left out and counted in a comment
    (required ones always stay, so a call written from the stub is never missing an argument).
    """
    full = stub(graph, sym)
    try:
        tree = ast.parse(full)
    except SyntaxError:
        return full
    node = tree.body[0]
    if isinstance(node, ast.ClassDef):
        node.decorator_list = []
        node.keywords = [k for k in node.keywords if k.arg == "metaclass"]
        node.body = [ast.Expr(ast.Constant(...))]
        return _one_line_body(ast.unparse(node))
    if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
        args = node.args
        for arg in [*args.posonlyargs, *args.args, *args.kwonlyargs, args.vararg, args.kwarg]:
            if arg is not None:
                arg.annotation = None
        args.defaults = [ast.Constant(...) for _ in args.defaults]
        args.kw_defaults = [None if v is None else ast.Constant(...) for v in args.kw_defaults]
        node.returns = None
        keep = [dec for dec in node.decorator_list if _decorator_name(dec) in _KEPT_DECORATORS]
        node.decorator_list = keep
        text = _one_line_body(ast.unparse(node))
        return _shorten_params(node, text, max_chars) if max_chars and len(text) > max_chars else text
    return full


def _shorten_params(node: ast.FunctionDef | ast.AsyncFunctionDef, text: str, max_chars: int) -> str:
    """Drop optional parameters from the end until the stub fits `max_chars`; say how many went."""
    args = node.args
    dropped = 0
    while len(text) > max_chars:
        if args.kwarg is not None:
            args.kwarg = None
        elif args.kwonlyargs and args.kw_defaults[-1] is not None:
            args.kwonlyargs.pop()
            args.kw_defaults.pop()
        elif args.vararg is not None and not any(d is None for d in args.kw_defaults):
            args.vararg = None
        elif args.defaults and not args.kwonlyargs:
            args.defaults.pop()
            (args.args or args.posonlyargs).pop()
        else:
            break
        dropped += 1
        text = _one_line_body(ast.unparse(node))
    return f"{text}  # +{dropped} more parameters" if dropped else text


def _one_line_body(text: str) -> str:
    """`ast.unparse` puts the `...` body on its own line; a stub reads better (and costs less) inline."""
    suffix = ":\n    ..."
    return text[: -len(suffix)] + ": ..." if text.endswith(suffix) else text


_KEPT_DECORATORS = frozenset({"property", "staticmethod", "classmethod", "abstractmethod", "overload"})


def _decorator_name(node: ast.expr) -> str:
    if isinstance(node, ast.Call):
        node = node.func
    if isinstance(node, ast.Attribute):
        return node.attr
    return node.id if isinstance(node, ast.Name) else ""


# --- assignments ---------------------------------------------------------------------------------
def assignment_text(graph: RepoGraph, sym: Sym, tier: str) -> str:
    """A module constant / class attribute: whole when short, else with its value elided validly."""
    memo = _memo(graph)
    key = (sym, f"assign-{tier}")
    found = memo.get(key)
    if found is not None:
        return found
    d = _def(graph, sym)
    text = _dedent(_src(graph, sym.path, d.start_byte, d.end_byte).rstrip(), d.column)
    short = len(text) <= MAX_VALUE_CHARS and text.count("\n") < MAX_VALUE_LINES
    if tier in ("signature", "doc", "full") and short and is_valid(text):
        found = text
    else:
        found = _elided_assignment(text, d.name, keep_shape=tier != "name")
    memo[key] = found
    return found


def _elided_assignment(text: str, name: str, keep_shape: bool) -> str:
    """`X = Union[A, B, ...]` -> `X = Union[...]`; `X: T = f(...)` -> `X: T = f(...)`; else `X = ...`."""
    try:
        stmt = ast.parse(text).body[0]
    except (SyntaxError, ValueError, IndexError, MemoryError, RecursionError):
        return f"{name} = ..."
    value: ast.expr | None
    if isinstance(stmt, ast.Assign):
        targets = [ast.get_source_segment(text, t) or name for t in stmt.targets]
        lhs, value = " = ".join(targets), stmt.value
    elif isinstance(stmt, ast.AnnAssign):
        target = ast.get_source_segment(text, stmt.target) or name
        annotation = ast.get_source_segment(text, stmt.annotation) or ""
        if "\n" in annotation or len(annotation) > MAX_VALUE_CHARS:
            annotation = ast.unparse(stmt.annotation)
        # the name tier keeps a short annotation only (`TIMEOUT: float = ...`, not a `t.Literal[...]`)
        width = MAX_VALUE_CHARS if keep_shape else MAX_NAME_ANNOTATION
        lhs = f"{target}: {annotation}" if len(annotation) <= width else target
        value = stmt.value
        if value is None and lhs != target:
            return lhs  # a bare annotation (`name: int`) is already short
    else:
        return f"{name} = ..."
    rhs = _elide(text, value) if keep_shape and value is not None else "..."
    out = f"{lhs} = {rhs}"
    if "\n" in lhs or not is_valid(out):
        return f"{name} = ..."
    return out


def _elide(text: str, value: ast.expr) -> str:
    """The shape of a long value with its contents replaced by `...`."""
    if isinstance(value, ast.Call):
        head = ast.get_source_segment(text, value.func) or ""
        return f"{head}(...)" if head and "\n" not in head and len(head) <= 60 else "..."
    if isinstance(value, ast.Subscript):
        head = ast.get_source_segment(text, value.value) or ""
        return f"{head}[...]" if head and "\n" not in head and len(head) <= 60 else "..."
    if isinstance(value, ast.Dict | ast.DictComp | ast.Set | ast.SetComp):
        return "{...}"
    if isinstance(value, ast.List | ast.ListComp):
        return "[...]"
    if isinstance(value, ast.Tuple | ast.GeneratorExp):
        return "(...)"
    if isinstance(value, ast.Constant) and isinstance(value.value, str):
        return "'...'"
    return "..."


# --- classes -------------------------------------------------------------------------------------
def constructor(graph: RepoGraph, cls: Sym) -> tuple[Sym, Sym] | None:
    """(class defining it, method) of the `__init__` / `__new__` a call of `cls` runs, if in the repo."""
    for ancestor in graph.mro(cls):
        members = graph.index[ancestor.path].members.get(ancestor.index, {})
        for name in ("__init__", "__new__"):
            index = members.get(name)
            if index is not None:
                return ancestor, Sym(ancestor.path, index)
    return None


def _is_field_class(graph: RepoGraph, cls: Sym) -> bool:
    d = _def(graph, cls)
    if any(dec.rsplit(".", 1)[-1] in _FIELD_DECORATORS for dec in d.decorators):
        return True
    return any(base.rsplit(".", 1)[-1] in _FIELD_BASES for base in d.bases)


def class_body(graph: RepoGraph, cls: Sym, tier: str, skip: frozenset[Sym] = frozenset()) -> list[str]:
    """Lines (dedented to the class body) a class item adds under its header at `tier`.

    `skip`: members rendered as items of their own (a chosen `__init__` is not repeated).
    """
    if tier == "name":
        return []
    parts: list[str] = []
    if tier in ("doc", "full"):
        doc = _docstring_of(graph, cls)
        if doc:
            parts.append(doc)
    ctor = constructor(graph, cls)
    if ctor is not None:
        owner, method = ctor
        if method not in skip:
            text = stub(graph, method)
            if owner != cls or text.count("\n") >= MAX_INIT_LINES or len(text) > MAX_INIT_CHARS:
                text = compact_stub(graph, method, MAX_INIT_CHARS)
            if owner != cls:
                text += f"  # from {_def(graph, owner).qualname}"
            parts.append(text)
    elif _is_field_class(graph, cls):
        fields = []
        defs = graph.parsed[cls.path].definitions
        members = graph.index[cls.path].members.get(cls.index, {}).values()
        for index in sorted(members, key=lambda i: defs[i].start_byte):
            member = Sym(cls.path, index)
            if _def(graph, member).kind == "attribute":
                fields.append(assignment_text(graph, member, "signature"))
        parts.extend(fields[:MAX_FIELDS])
        if len(fields) > MAX_FIELDS:
            parts.append("...")
    return parts


def render_class(graph: RepoGraph, cls: Sym, tier: str, members: Sequence[str] = (), skip=frozenset()) -> str:
    """A class header with its tier's body lines and already-rendered member texts, valid Python."""
    header = class_header(graph, cls, tier)
    body = [*class_body(graph, cls, tier, skip), *members]
    if not is_valid(header + " ..."):
        header = _fallback_stub(_def(graph, cls))[: -len(" ...")]
    if not body:
        return header + " ..."
    return header + "\n" + "\n".join(_indent(part, 1) for part in body)


# --- items ---------------------------------------------------------------------------------------
def render_item(graph: RepoGraph, sym: Sym, tier: str) -> str:
    """One definition at `tier`, standalone (dedented), valid Python."""
    memo = _memo(graph)
    key = (sym, tier)
    found = memo.get(key)
    if found is not None:
        return found
    d = _def(graph, sym)
    if d.kind == "class":
        found = render_class(graph, sym, tier)
    elif d.kind not in ("function", "method"):
        found = assignment_text(graph, sym, tier)
    elif tier == "name":
        found = compact_stub(graph, sym, MAX_NAME_CHARS)
    elif tier == "full":
        found = _dedent(_src(graph, sym.path, d.start_byte, d.end_byte).rstrip(), d.column)
        if not is_valid(found):
            found = render_item(graph, sym, "doc")
    else:
        found = stub(graph, sym)
        doc = _docstring_of(graph, sym) if tier == "doc" else ""
        if doc:
            found = found[: -len(" ...")] + "\n" + _indent(doc, 1)
            if not is_valid(found):
                found = stub(graph, sym)
    memo[key] = found
    return found


def lower_tier(tier: str) -> str | None:
    pos = TIERS.index(tier)
    return TIERS[pos - 1] if pos > 0 else None


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


def assemble_blocks(graph: RepoGraph, items: Sequence[_Item]) -> list[str]:
    """One block per file (best file first): `# file:` label, then its items in source order with
    members nested under their classes. Each block is valid Python."""
    by_file: dict[str, list[_Item]] = {}
    for item in sorted(items, key=lambda it: -it.score):
        by_file.setdefault(item.sym.path, []).append(item)
    blocks = []
    for path, file_items in by_file.items():
        chosen = {it.sym: it for it in file_items}
        children: dict[Sym | None, list[Sym]] = {}
        for sym in chosen:
            chain: list[Sym | None] = [None, *_containers(graph, sym), sym]
            for parent, child in itertools.pairwise(chain):
                assert child is not None
                siblings = children.setdefault(parent, [])
                if child not in siblings:
                    siblings.append(child)

        top = sorted(children.get(None, ()), key=lambda s: _def(graph, s).start_byte)
        blocks.append(
            "\n".join([file_label(path), *(_render_node(graph, sym, chosen, children) for sym in top)])
        )
    return blocks


def _render_node(
    graph: RepoGraph, node: Sym, chosen: dict[Sym, _Item], children: dict[Sym | None, list[Sym]]
) -> str:
    """An item, or a class with its chosen members nested (recursively) under its header."""
    item = chosen.get(node)
    kids = sorted(children.get(node, ()), key=lambda s: _def(graph, s).start_byte)
    if _def(graph, node).kind != "class":
        assert item is not None
        return item.text
    tier = item.tier if item else "name"
    if tier != "name" and constructor(graph, node) is None and _is_field_class(graph, node):
        kids = [k for k in kids if _def(graph, k).kind != "attribute"]  # fields are in its body
    members = [_render_node(graph, kid, chosen, children) for kid in kids]
    return render_class(graph, node, tier, members, frozenset(kids))


def assemble(graph: RepoGraph, items: Sequence[_Item]) -> str:
    return "\n\n".join(assemble_blocks(graph, items))


# --- choosing ------------------------------------------------------------------------------------
class _Selection:
    """Chosen items and the budget left, with the per-file / per-class label costs paid once."""

    def __init__(
        self, graph: RepoGraph, budget: int, count: TokenCounter, items: Sequence[_Item] = ()
    ) -> None:
        self.graph = graph
        self.count = count
        self.left = budget
        self.items: dict[Sym, _Item] = {it.sym: it for it in items}
        self.files_open: set[str] = {it.sym.path for it in items}
        self.containers_open: set[Sym] = set()
        for it in items:
            self.containers_open.update(_containers(graph, it.sym))
            if _def(graph, it.sym).kind == "class":
                self.containers_open.add(it.sym)

    def overhead(self, sym: Sym) -> tuple[int, list[Sym]]:
        cost = 0 if sym.path in self.files_open else self.count(file_label(sym.path)) + 2
        new = [c for c in _containers(self.graph, sym) if c not in self.containers_open]
        cost += sum(self.count(class_header(self.graph, c, "name")) + 1 for c in new)
        return cost, new

    def add(self, sym: Sym, score: float, tier: str) -> bool:
        overhead, new = self.overhead(sym)
        text = render_item(self.graph, sym, tier)
        cost = self.count(text) + 1
        if _def(self.graph, sym).kind == "class" and sym in self.containers_open:
            cost -= self.count(class_header(self.graph, sym, "name"))  # its header is already paid for
        if cost + overhead > self.left:
            return False
        self.items[sym] = _Item(sym, score, tier, text, cost)
        self.left -= cost + overhead
        self.files_open.add(sym.path)
        self.containers_open.update(new)
        if _def(self.graph, sym).kind == "class":
            self.containers_open.add(sym)
        return True

    def add_best(self, sym: Sym, score: float, tier: str = "signature") -> bool:
        """Add at `tier`, else at the cheaper tiers below it: a name beats a left-out definition."""
        current: str | None = tier
        while current is not None:
            if self.add(sym, score, current):
                return True
            current = lower_tier(current)
        return False

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
    already: Sequence[_Item] = (),
) -> list[_Item]:
    """Greedy by expected value per token: naming a candidate (it is then found), upgrading it to its
    signature (a class: its constructor, without which a call cannot be written), detail (docstring
    summary or whole source) for the best few.

    A candidate's chance of being used is estimated from its score relative to the best
    (`_likelihood`); a name is worth that chance, twice when the name tier already shows how to call
    it (a function's parameters, an assignment, a class without a constructor); a class's signature
    is worth the chance again; annotations and detail are worth `options.detail_value` of it. Actions
    are taken best density first while they fit (a lazy greedy: costs are rendered only when an action
    reaches the top). With `already` (a top-up round), those items stay and the greedy continues.
    """
    sel = _Selection(graph, budget, count, already)
    candidates = list(ranked[: options.max_candidates])
    if not candidates:
        return list(sel.items.values())
    top = max(candidates[0][1], 1e-9)
    heap: list[tuple[float, int, bool, Sym, float, str]] = []  # (-density, order, exact, sym, score, tier)
    order = itertools.count()
    detailed = sum(1 for it in sel.items.values() if it.tier in ("doc", "full"))
    full = sum(1 for it in sel.items.values() if it.tier == "full")

    def value(sym: Sym, score: float, tier: str) -> float:
        p = _likelihood(score, top)
        usable_by_name = _usable_at_name(graph, sym)
        if tier == "name":
            return p * (1.0 + options.usable_value * usable_by_name)
        if tier == "signature" and not usable_by_name:
            return p * options.usable_value
        return p * options.detail_value

    def push(sym: Sym, score: float, tier: str) -> None:
        # before rendering, a name is assumed to cost a typical compact stub plus its share of a label
        guess = options.name_cost if tier == "name" else 2 * options.name_cost
        heapq.heappush(heap, (-value(sym, score, tier) / guess, next(order), False, sym, score, tier))

    def next_tier(sym: Sym, score: float, tier: str) -> None:
        d = _def(graph, sym)
        nxt = "signature" if tier == "name" else None
        if tier == "signature" and d.kind in ("function", "method", "class"):
            short = d.kind != "class" and d.end_line - d.start_line < MAX_FULL_LINES and score >= 0.5 * top
            nxt = "full" if short and full < MAX_FULL_ITEMS else "doc"
            if detailed >= options.max_detailed:
                nxt = None
        if nxt is not None:
            push(sym, score, nxt)

    for item in sel.items.values():
        next_tier(item.sym, item.score, item.tier)
    for sym, score in candidates:
        if sym not in sel.items:
            push(sym, score, "name")
    while heap and sel.left > 4:
        _, _, exact, sym, score, tier = heapq.heappop(heap)
        item = sel.items.get(sym)
        if not exact:
            cost = _action_cost(sel, sym, tier, item)
            if cost is None:
                continue
            density = value(sym, score, tier) / max(1, cost)
            if heap and -heap[0][0] > density:
                heapq.heappush(heap, (-density, next(order), True, sym, score, tier))
                continue
        if tier == "name":
            if sym in sel.items or not sel.add(sym, score, "name"):
                continue
        else:
            if item is None or TIERS.index(item.tier) >= TIERS.index(tier):
                continue
            max_cost = max(1, budget // 4) if tier == "full" else None
            if tier == "full" and not sel.upgrade(sym, tier, max_cost=max_cost):
                tier = "doc"  # too long to show whole: its docstring summary instead
            if tier == "doc" and not sel.upgrade(sym, tier):
                continue
            if tier == "signature" and not sel.upgrade(sym, tier):
                continue
            if tier in ("doc", "full"):
                detailed += 1
                full += tier == "full"
        next_tier(sym, score, tier)
    return list(sel.items.values())


def _likelihood(score: float, top: float) -> float:
    """Chance that a candidate is used, from its score relative to the best: fitted on the dev
    packages' holes (about 0.45 for the best, 0.07 at half its score, 0.01 at a fifth)."""
    ratio = max(0.0, min(1.0, score / top))
    return 0.45 * ratio**2.5


def _usable_at_name(graph: RepoGraph, sym: Sym) -> bool:
    """Whether the name tier already shows how to use a definition (parameters, value): all but a class
    with a constructor or dataclass-style fields."""
    if _def(graph, sym).kind != "class":
        return True
    return constructor(graph, sym) is None and not _is_field_class(graph, sym)


def _action_cost(sel: _Selection, sym: Sym, tier: str, item: _Item | None) -> int | None:
    """Tokens an action adds (labels and container headers included), None when it cannot apply."""
    if tier == "name":
        if item is not None:
            return None
        overhead, _ = sel.overhead(sym)
        return overhead + sel.count(render_item(sel.graph, sym, "name")) + 1
    if item is None:
        return None
    return sel.count(render_item(sel.graph, sym, tier)) + 1 - item.cost


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
