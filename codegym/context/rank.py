"""Rank cross-file definitions for a hole from the structure around it.

Signals (weights in `RankWeights`): what the hole function's own code references (signature,
decorators, any body lines already written), what the file imports but no longer uses elsewhere (a
name in `__all__` is used; an unused module shares the weight among its public names, a class the
hole must use among its classmethods and staticmethods), what it imports and uses (`from m import X`
and `m.X` alike) and the members of the modules it imports (package re-exports included), what the
rest of the file and the sibling methods reference (decaying with distance, down-weighted when most
of the file's functions use it), the class hierarchy (bases, the overridden method and what it
calls), names shared with the signature and docstring (IDF-weighted subwords with a coordination
factor, a name equal to the hole's, exact mentions, the hole's own name when qualified:
`utils.get_value`; a member only when the file reaches its class), co-usage with the hole's known
targets across the repo, the members of the classes that ranked (those reachable as `Cls.name`
first: classmethods, staticmethods, class attributes; those whose parameters are named like the
hole's and its class's constructor's before the rest; `_private` ones of classes the hole does not
derive from last), and a centrality prior (distinct referencing scopes). Only code outside the
hole's body is read: the body being written is never seen.
"""

from __future__ import annotations

import heapq
import keyword
import math
import re
from collections import Counter, defaultdict
from collections.abc import Callable
from dataclasses import dataclass

from codegym.context.graph import RepoGraph, Sym, reachable_indices
from codegym.context.model import MODULE_SCOPE, Definition, ImportBinding

_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
# a header's brackets, separators, stars, strings (skipped whole: a default may hold commas) and words
_HEADER_TOKEN = re.compile(
    r"""\*\*|[()\[\]{},=:*]|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|[A-Za-z_][A-Za-z0-9_]*"""
)
_QUOTED = re.compile(r"`~?(?:[A-Za-z_][A-Za-z0-9_]*\.)*([A-Za-z_][A-Za-z0-9_]*)(?:\(\))?`")
# `owner.name` (overlapping: `pkg.utils.get_value` yields `pkg.utils` and `utils.get_value`)
_QUALIFIED = re.compile(r"([A-Za-z_][A-Za-z0-9_]*)\.(?=([A-Za-z_][A-Za-z0-9_]*))")
_SPLIT = re.compile(r"[A-Z]+(?=[A-Z][a-z])|[A-Z]?[a-z]+|[A-Z]+|\d+")
_STOP = frozenset(
    {
        "a",
        "an",
        "and",
        "are",
        "as",
        "at",
        "be",
        "by",
        "for",
        "from",
        "get",
        "if",
        "in",
        "is",
        "it",
        "of",
        "on",
        "or",
        "self",
        "cls",
        "the",
        "this",
        "to",
        "with",
        "none",
        "true",
        "false",
        "return",
        "returns",
        "value",
        "values",
        "param",
        "type",
        "args",
        "kwargs",
    }
)
# builtin and typing type names: noise in annotations and docstrings, but a definition named `Dict` /
# `List` is what `parse_dict` builds, so names keep them
_TYPE_WORDS = frozenset(
    {
        "str",
        "int",
        "bool",
        "dict",
        "list",
        "object",
        "optional",
        "union",
        "any",
        "callable",
        "tuple",
        "iterable",
    }
)
COORDINATION = 0.7  # per query word a name matches beyond the first (see `_lexical`)
_CANDIDATE_KINDS = frozenset({"function", "method", "class", "constant", "variable", "attribute"})


@dataclass(frozen=True)
class Hole:
    """Where code is being written: a line of a file and the function (if any) whose body it is."""

    path: str
    line: int
    function: int  # index of the function/method being written, MODULE_SCOPE at module level
    scope: int  # scope for name lookups at the hole (the function, else the innermost class)
    start_byte: int  # the hole function's span (decorators to end); the hole line when no function
    end_byte: int


@dataclass(frozen=True)
class RankWeights:
    """Weights of the ranking signals.

    Set by hand, then adjusted on the benchmark's "dev" packages only (click, requests, rich, urllib3,
    PyYAML, Jinja2, Werkzeug, attrs, marshmallow; misses inspected with benchmarks/context_misses.py);
    the "held-out" packages of benchmarks/context_recall.py never took part.
    """

    hole_ref: float = 2.0  # referenced by the hole function's signature, decorators or written lines
    hole_ref_alias: float = 0.5  # ... when the target is a variable (type aliases in annotations)
    unused_import: float = 6.0  # imported by the file, used nowhere else in it: the body must use it
    used_import: float = 2.0
    module_member: float = 2.0  # member of a module the file imports, by name similarity and centrality
    unused_module_member: float = 3.0
    attribute_factor: float = 0.6  # class-level attributes are rarely what a body needs by name
    file_ref: float = 2.4  # referenced elsewhere in the file, decaying with distance from the hole
    sibling_ref: float = 1.0  # referenced by other methods of the hole's class
    twin: float = 2.0  # ... by a function of the file named like the hole (`export_html` for `export_svg`)
    base_class: float = 1.5
    base_member: float = 0.6  # member of a base class, scaled by name similarity
    override: float = 4.0  # the method the hole overrides
    override_ref: float = 1.5  # what the overridden method references
    lexical: float = 2.5  # IDF-weighted subword overlap with name, parameters, docstring
    mention: float = 1.5  # named verbatim (snake_case, CamelCase or `quoted`) in the signature or docstring
    co_usage: float = 2.0  # used by the repo's scopes that use what the hole is known to use
    centrality: float = 0.6
    member: float = 3.0  # members of the best-ranked classes, by their own centrality and name match
    member_lexical: float = 0.3  # name match alone counts this much for a member of an unranked class
    class_level_lexical: float = 1.0  # ... for a classmethod / staticmethod of a class the file uses
    classes_expanded: int = 16
    member_base: float = 0.15
    member_name: float = 1.5  # name match of a member of a ranked class
    member_params: float = 1.5  # ... and its parameters named like the hole's (see `_param_match`)
    # classmethods / staticmethods of a class the hole is known to use (its signature names it, or an
    # import left unused): the body calls the class or one of them, shared among them
    known_class_level: float = 2.0
    # when the signals above name fewer candidates than this (a small package, a file importing little),
    # the repository's other module-level definitions follow them (see `_Scorer.fallback`)
    fallback_until: int = 400
    namesake: float = 2.0  # named as the hole is, word for word (`Rule` for `Console.rule`)
    # an instance method of a class the hole does not derive from is reached through an object, which
    # static resolution cannot see; what a body reaches as `Cls.name` is a classmethod, staticmethod,
    # class attribute or nested class
    instance_member: float = 0.1
    private_member: float = 0.2  # `_name` members of classes the hole's class does not derive from
    private_variable: float = 0.5  # `_name` module-level variables of other modules
    distance_lines: float = 40.0  # half-weight distance for file references
    spread: float = 3.0  # down-weighting of file references by the share of the file's functions using them


def subwords(name: str, types: bool = True) -> list[str]:
    """`getTextStderr` / `get_text_stderr` -> ["text", "stderr"] (lower-cased, stop words and plurals
    off; builtin type words too unless `types`)."""
    out = []
    for part in _SPLIT.findall(name):
        word = part.lower()
        if len(word) < 2 or word in _STOP or (not types and word in _TYPE_WORDS):
            continue
        if len(word) > 3 and word.endswith("s") and not word.endswith("ss"):
            word = word[:-1]
        out.append(word)
    return out


def class_level(d: Definition | None) -> bool:
    """Whether a class member is reached through the class itself (`Cls.name`): a classmethod or
    staticmethod, a class attribute, a nested class; an instance method or property is not."""
    if d is None:
        return False
    if d.kind != "method":
        return True
    return any(dec.rsplit(".", 1)[-1] in ("classmethod", "staticmethod") for dec in d.decorators)


def locate_hole(graph: RepoGraph, path: str, line: int) -> Hole:
    """The function whose body holds `line`, counting the line right after a body-less starter."""
    parsed = graph.parsed[path]
    best = MODULE_SCOPE
    for i, d in enumerate(parsed.definitions):
        if d.kind not in ("function", "method") or d.start_line > line:
            continue
        if line <= max(d.end_line, d.body_line) + 1 and (
            best == MODULE_SCOPE or d.start_line >= parsed.definitions[best].start_line
        ):
            best = i
    source = graph.sources[path]
    line_start = _line_offset(source, line)
    if best != MODULE_SCOPE:
        d = parsed.definitions[best]
        return Hole(path, line, best, best, d.start_byte, max(d.end_byte, line_start))
    scope = MODULE_SCOPE
    for i, d in enumerate(parsed.definitions):  # a hole directly in a class body
        if d.kind == "class" and d.start_line < line <= d.end_line + 1:
            scope = i
    return Hole(path, line, MODULE_SCOPE, scope, line_start, line_start)


def _line_offset(source: bytes, line: int) -> int:
    offset = 0
    for _ in range(max(0, line - 1)):
        nxt = source.find(b"\n", offset)
        if nxt < 0:
            return len(source)
        offset = nxt + 1
    return offset


class _NameIndex:
    """Per-graph tables for lexical scoring: candidate definitions, their subwords, IDF."""

    def __init__(self, graph: RepoGraph | None = None) -> None:
        self.tokens: dict[Sym, tuple[str, ...]] = {}  # every candidate definition -> its subwords
        self.members: set[Sym] = set()  # methods and class attributes
        self.idf: dict[str, float] = {}
        self.param_idf: dict[str, float] = {}  # parameter name -> IDF over the repo's functions
        self.n_functions = 0
        if graph is None:
            return
        doc_freq: Counter[str] = Counter()
        param_freq: Counter[str] = Counter()
        for path in graph.parsed:
            for sym, toks in self._of_file(graph, path):
                doc_freq.update(toks)
                params = _parameters(graph, sym)
                if params:
                    self.n_functions += 1
                    param_freq.update(set(params))
        total = max(1, len(self.tokens))
        self.idf = {tok: math.log(1 + total / n) for tok, n in doc_freq.items()}
        self.param_idf = {p: math.log(1 + self.n_functions / n) for p, n in param_freq.items()}

    def _of_file(self, graph: RepoGraph, path: str) -> list[tuple[Sym, tuple[str, ...]]]:
        out = []
        defs = graph.parsed[path].definitions
        reachable = set(reachable_indices(graph.parsed[path]))
        for i, d in enumerate(defs):
            dunder_name = d.name.startswith("__") and d.kind in ("variable", "constant", "attribute")
            if d.kind not in _CANDIDATE_KINDS or dunder_name:
                continue  # `__all__`, `__version__`: nothing a body uses by name (a `def __ne__` is)
            if d.parent != MODULE_SCOPE and i not in reachable:
                continue  # inside a function: not reachable from other files
            sym = Sym(path, i)
            toks = tuple(dict.fromkeys(subwords(d.name)))
            self.tokens[sym] = toks
            if d.parent != MODULE_SCOPE:
                self.members.add(sym)
            out.append((sym, toks))
        return out

    @property
    def candidates(self) -> list[Sym]:
        return list(self.tokens)

    def updated(self, old: RepoGraph, new: RepoGraph, path: str, renumber: object) -> _NameIndex:
        """After an interface-preserving edit of `path`: same names, so the same IDF; new indices."""
        index = _NameIndex()
        index.tokens = {sym: toks for sym, toks in self.tokens.items() if sym.path != path}
        index.members = {sym for sym in self.members if sym.path != path}
        index.idf = self.idf
        index.param_idf, index.n_functions = self.param_idf, self.n_functions
        index._of_file(new, path)
        return index

    @classmethod
    def of(cls, graph: RepoGraph) -> _NameIndex:
        index = graph.memo.get("names")
        if not isinstance(index, _NameIndex):
            index = cls(graph)
            graph.memo["names"] = index
        return index


class _CoUsage:
    """Scope -> set of definitions it references, for the co-usage signal (built once per graph)."""

    def __init__(self, graph: RepoGraph | None = None) -> None:
        self.by_scope: dict[tuple[str, int], set[Sym]] = defaultdict(set)
        self.users: dict[Sym, set[tuple[str, int]]] = defaultdict(set)
        for path in graph.parsed if graph is not None else ():
            self._add_file(graph, path)

    def _add_file(self, graph: RepoGraph, path: str) -> None:
        for ref, sym in graph.resolved(path):
            if sym is not None and sym.is_definition and sym.path != path:
                key = (path, graph.outermost_function(path, ref.scope))
                self.by_scope[key].add(sym)
                self.users[sym].add(key)

    def updated(self, old: RepoGraph, new: RepoGraph, path: str, renumber: Callable[[Sym], Sym]) -> _CoUsage:
        """Drop the edited file's scopes and add them as the new graph resolves them; renumber the
        edited file's definitions in the other scopes that use them."""
        table = _CoUsage()
        table.by_scope.update((k, v) for k, v in self.by_scope.items() if k[0] != path)
        table.users.update(self.users)  # shares the sets: any set changed below is copied first
        copied: set[Sym] = set()
        # the edited file's old scopes leave every user set they were in
        for key, syms in self.by_scope.items():
            if key[0] != path:
                continue
            for sym in syms:
                if sym not in copied:
                    table.users[sym] = set(table.users.get(sym, ()))
                    copied.add(sym)
                table.users[sym].discard(key)
        # the edited file's definitions may have new indices: renumber where other scopes use them
        moved = [(sym, renumber(sym)) for sym in list(table.users) if sym.path == path]
        moved = [(a, b) for a, b in moved if a != b]
        holders = {a: table.users.pop(a) for a, _ in moved}
        for a, b in moved:
            table.users[b] = holders[a]
            for key in holders[a]:
                scope = table.by_scope[key]
                if scope is self.by_scope.get(key):
                    scope = table.by_scope[key] = set(scope)
                scope.discard(a)
        for a, b in moved:
            for key in holders[a]:
                table.by_scope[key].add(b)
        for ref, sym in new.resolved(path):
            if sym is not None and sym.is_definition and sym.path != path:
                key = (path, new.outermost_function(path, ref.scope))
                table.by_scope[key].add(sym)
                if sym not in copied:
                    table.users[sym] = set(table.users.get(sym, ()))
                    copied.add(sym)
                table.users[sym].add(key)
        for sym in [s for s, keys in table.users.items() if not keys and s in copied]:
            del table.users[sym]
        return table

    @classmethod
    def of(cls, graph: RepoGraph) -> _CoUsage:
        table = graph.memo.get("co_usage")
        if not isinstance(table, _CoUsage):
            table = cls(graph)
            graph.memo["co_usage"] = table
        return table


def rank(graph: RepoGraph, hole: Hole, weights: RankWeights | None = None) -> list[tuple[Sym, float]]:
    """Cross-file candidate definitions for `hole`, best first, with their scores."""
    scorer = _Scorer(graph, hole, weights or RankWeights())
    scorer.own_code()
    scorer.rest_of_file()
    scorer.imports()
    scorer.hierarchy()
    scorer.name_similarity()
    scorer.co_usage()
    scorer.class_members()
    scorer.centrality_prior()
    scorer.privacy()
    scorer.fallback()
    return sorted(scorer.scores.items(), key=lambda item: (-item[1], item[0].path, item[0].index))


class _Scorer:
    """Accumulates one query's scores, one method per signal (called in order: later ones read earlier)."""

    def __init__(self, graph: RepoGraph, hole: Hole, weights: RankWeights) -> None:
        self.graph = graph
        self.hole = hole
        self.w = weights
        self.names = _NameIndex.of(graph)
        self.scores: dict[Sym, float] = defaultdict(float)
        self.known: set[Sym] = set()  # what the hole is known to use: its own references, unused imports
        self.hole_class = (
            graph.enclosing_class(hole.path, hole.function) if hole.function != MODULE_SCOPE else None
        )
        self.lexical = _lexical(self.names, _query_tokens(graph, hole), exclude=hole.path)
        self._ancestors = set(graph.mro(self.hole_class)) if self.hole_class is not None else set()
        self._reached: set[Sym] = set()
        self._vocab: frozenset[str] | None = None
        degree = graph.in_degree()
        self._degree = degree
        self._norm = math.log1p(max(degree.values(), default=1)) or 1.0

    def add(self, sym: Sym | None, amount: float) -> None:
        if sym is not None and sym in self.names.tokens and sym.path != self.hole.path and amount > 0:
            self.scores[sym] += amount

    def kind(self, sym: Sym) -> str:
        d = self.graph.definition(sym)
        return d.kind if d is not None else "module"

    def decay(self, line: int) -> float:
        return 1.0 / (1.0 + abs(line - self.hole.line) / self.w.distance_lines)

    def centrality(self, sym: Sym) -> float:
        return math.log1p(self._degree.get(sym, 0)) / self._norm

    def in_hole(self, byte: int) -> bool:
        return self.hole.start_byte <= byte < self.hole.end_byte

    def own_code(self) -> None:
        """The hole function's signature, decorators and any lines already written around the hole."""
        for ref, sym in self.graph.targets_in(self.hole.path, self.hole.start_byte, self.hole.end_byte):
            alias = self.kind(sym) in ("variable", "constant")  # type aliases in annotations
            self.add(sym, (self.w.hole_ref_alias if alias else self.w.hole_ref) * self.decay(ref.line))
            self.known.add(sym)

    def rest_of_file(self) -> None:
        """References elsewhere in the file, sibling methods weighted up; log-damped so `t.Optional`
        cannot dominate."""
        graph, path, mass = self.graph, self.hole.path, defaultdict(float)
        units: dict[Sym, set[int]] = defaultdict(set)
        twins = _twins(graph, self.hole)
        for ref, sym in graph.resolved(path):
            if sym is None or not sym.is_definition or self.in_hole(ref.byte):
                continue
            unit = graph.outermost_function(path, ref.scope)
            amount = self.w.file_ref * self.decay(ref.line)
            if self.hole_class is not None and graph.enclosing_class(path, ref.scope) == self.hole_class:
                amount += self.w.sibling_ref
            mass[sym] += amount * (1.0 + self.w.twin * twins.get(unit, 0.0))
            units[sym].add(unit)
        n_units = max(1, len({u for found in units.values() for u in found}))
        for sym, value in mass.items():
            # a name most of the file's functions use (a type alias, the module's main class) says
            # little about this body: down-weight by the share of units using it
            share = len(units[sym]) / n_units
            spread = 1.0 / (1.0 + self.w.spread * max(0.0, share - 0.1))
            self.add(sym, math.log1p(value) * spread)

    def imports(self) -> None:
        """An import the rest of the file no longer uses is what the missing body used."""
        w = self.w
        imported, through = _import_uses(self.graph, self.hole)
        for star, target, count in imported:
            if target.is_definition and count == 0 and star:
                # a star import brings many names: unused ones are only as likely as module members
                self.add(target, w.module_member * self._member_strength(target))
            elif target.is_definition:
                used = w.used_import * (1 + math.log1p(count)) / 2
                self.add(target, w.unused_import if count == 0 else used)
                if count == 0:
                    self.known.add(target)
            elif target.index == MODULE_SCOPE:
                factor = w.unused_module_member if count == 0 else w.module_member
                members = _module_members(self.graph, target.path)
                for member in members:
                    self.add(member, factor * self._member_strength(member))
                if count == 0:
                    # the body uses at least one of the module's names: a small module's each is likely
                    public = _public_names(self.names, self.graph, members)
                    for member in public:
                        self.add(member, w.unused_import / len(public))
        for member, count in through.items():
            # `nodes.Const` used elsewhere in the file counts as much as `from .nodes import Const` would
            self.add(member, w.used_import * (1 + math.log1p(count)) / 2)

    def _member_strength(self, sym: Sym) -> float:
        return 0.2 + self.lexical.get(sym, 0.0) + self.centrality(sym)

    def hierarchy(self) -> None:
        """Bases of the hole's class, their members, the overridden method and what it references."""
        if self.hole_class is None:
            return
        graph, w = self.graph, self.w
        hole_name = graph.parsed[self.hole.path].definitions[self.hole.function].name
        for ancestor in graph.mro(self.hole_class)[1:]:
            self.add(ancestor, w.base_class)
            for name, i in graph.index[ancestor.path].members.get(ancestor.index, {}).items():
                member = Sym(ancestor.path, i)
                self.add(member, w.base_member * (0.2 + self.lexical.get(member, 0.0)))
                if name != hole_name:
                    continue
                self.add(member, w.override)
                d = graph.definition(member)
                if d is not None:
                    for _, sym in graph.targets_in(ancestor.path, d.start_byte, d.end_byte):
                        self.add(sym, w.override_ref)
                        self.known.add(sym)

    def name_similarity(self) -> None:
        """Name similarity with the signature and docstring, and verbatim mentions."""
        w = self.w
        self._reached = set(self.scores)  # before this signal adds classes by name alone
        namesakes = self._namesakes()
        for sym, value in self.lexical.items():
            factor = 1.0
            if sym in self.names.members:
                # a method named like the hole says nothing unless the body can reach its class: the
                # classes the file uses get their members matched in `class_members`
                if not self._related(sym):
                    continue
                factor = w.member_lexical
                if class_level(self.graph.definition(sym)) and self.kind(sym) == "method":
                    factor = w.class_level_lexical  # `Control.clear` for `Console.clear`
            if self.kind(sym) == "attribute":
                factor *= w.attribute_factor
            self.add(sym, w.lexical * value * factor)
            if sym in namesakes:
                self.add(sym, w.namesake * factor)
        for sym in _mentions(self.graph, self.hole):
            self.add(sym, w.mention)

    def _namesakes(self) -> set[Sym]:
        """Candidates whose name is the hole's, word for word (`Console.rule` -> `Rule`, `parse_dict`
        -> `parse_dict`): the best a name can say, which a share of IDF-weighted words understates
        when the hole's docstring and parameters bring many other words. Not for dunders: a
        protocol fixes their names, not what their bodies use."""
        if self.hole.function == MODULE_SCOPE:
            return set()
        name = self.graph.parsed[self.hole.path].definitions[self.hole.function].name
        want = set(subwords(name))
        if not want or (name.startswith("__") and name.endswith("__")):
            return set()
        return {sym for sym in self.lexical if set(self.names.tokens[sym]) == want}

    def _related(self, member: Sym) -> bool:
        """Whether a member's class is one the hole's file reaches (scored so far) or an ancestor."""
        d = self.graph.definition(member)
        if d is None or d.parent == MODULE_SCOPE:
            return True
        cls = Sym(member.path, d.parent)
        return cls in self._reached or cls in self._ancestors

    def co_usage(self) -> None:
        if self.known:
            for sym, value in _co_usage(self.graph, self.known, self.hole).items():
                self.add(sym, self.w.co_usage * value)

    def class_members(self) -> None:
        """Members of the classes that ranked well: `Segment.line(...)` needs `Segment` first. Only
        classes the file reaches (or the hole's bases): one matched by name alone is too far-fetched
        for its members to be matched too."""
        classes = sorted(
            (
                (sym, score)
                for sym, score in self.scores.items()
                if self.kind(sym) == "class" and (sym in self._reached or sym in self._ancestors)
            ),
            key=lambda item: -item[1],
        )[: self.w.classes_expanded]
        if not classes:
            return
        best = classes[0][1]
        for cls, score in classes:
            inherited = cls in self._ancestors  # `self.name` reaches its instance methods too
            if cls in self.known and not inherited:
                self._known_class_level(cls)
            for name, i in self.graph.index[cls.path].members.get(cls.index, {}).items():
                if name.startswith("__") and name.endswith("__"):
                    continue  # dunders are reached through syntax, not by name
                member = Sym(cls.path, i)
                lexical = self.w.member_name * self.lexical.get(member, 0.0)
                strength = self.w.member_base + lexical + self.centrality(member)
                strength += self.w.member_params * self._param_match(member)
                if self.kind(member) == "attribute":
                    strength *= self.w.attribute_factor
                elif not inherited and not class_level(self.graph.definition(member)):
                    strength *= self.w.instance_member
                self.add(member, self.w.member * (score / best) * strength)

    def _known_class_level(self, cls: Sym) -> None:
        """`VersionInfo._from_version_string(...)` for a class imported and otherwise unused: what a
        body reaches through a class it must use is its constructor or a class-level method."""
        found = []
        for name, i in self.graph.index[cls.path].members.get(cls.index, {}).items():
            d = self.graph.definition(Sym(cls.path, i))
            if d is not None and d.kind == "method" and class_level(d) and not name.startswith("__"):
                found.append(Sym(cls.path, i))
        for member in found:
            self.add(member, self.w.known_class_level / len(found))

    def _param_match(self, sym: Sym) -> float:
        """Share of a callable's parameters named like what the hole has at hand (its parameters, its
        class's constructor parameters): `Control.move_to(x, y)` for a method of a class built from
        `x` and `y`, `Style.normalize(style)` for a function taking `style`. A body passes what it
        has, so among dozens of members of a class the file uses, those are the likely calls."""
        if self._vocab is None:
            self._vocab = _hole_vocabulary(self.graph, self.hole)
        if not self._vocab:
            return 0.0
        params = _parameters(self.graph, sym)
        if not params:
            return 0.0
        # a parameter name most functions have (`style`, `console`) says less than a rare one: IDF over
        # the repository's functions, full weight for a name at most two functions share
        idf, ref = self.names.param_idf, math.log(1 + max(1, self.names.n_functions) / 2)
        return sum(min(1.0, idf.get(p, ref) / ref) for p in params if p in self._vocab) / len(params)

    def centrality_prior(self) -> None:
        for sym in list(self.scores):
            self.scores[sym] += self.w.centrality * self.centrality(sym)

    def privacy(self) -> None:
        """`_name` members of classes the hole does not derive from, and `_name` module variables, are
        internals other modules rarely touch (the hole's own class hierarchy reaches them as `self._x`)."""
        for sym in list(self.scores):
            d = self.graph.definition(sym)
            if d is None or not d.name.startswith("_") or d.name.endswith("__"):
                continue
            if d.parent != MODULE_SCOPE:
                if Sym(sym.path, d.parent) not in self._ancestors:
                    self.scores[sym] *= self.w.private_member
            elif d.kind == "variable":
                self.scores[sym] *= self.w.private_variable

    def fallback(self) -> None:
        """Fill the ranking up to `fallback_until` candidates when the signals run out, so a small
        repository's budget is not left unused while the body needs a name nothing outside it
        mentions (an import inside the blanked body: `from .connection import HTTP2Connection`).
        After every scored candidate, by a prior: the modules the file imports from (in any function),
        then the hole's own directory, then the rest; public before `_private`; central first."""
        missing = self.w.fallback_until - len(self.scores)
        if missing <= 0:
            return
        graph, hole = self.graph, self.hole
        near = _imported_files(graph, hole.path)
        folder = hole.path.rpartition("/")[0]
        pool: list[tuple[float, Sym]] = []
        for sym in self.names.tokens:
            if sym in self.scores or sym.path == hole.path or sym in self.names.members:
                continue
            d = graph.definition(sym)
            if d is None:
                continue
            prior = 1.0 if sym.path in near else 0.5 if sym.path.rpartition("/")[0] == folder else 0.0
            prior += 0.1 + self.centrality(sym) + self.lexical.get(sym, 0.0)
            if d.name.startswith("_"):
                prior *= self.w.private_member
            pool.append((prior, sym))
        if not pool:
            return
        floor = min(self.scores.values(), default=1.0)
        chosen = heapq.nlargest(missing, pool, key=lambda item: (item[0], -item[1].index))
        top = max(chosen[0][0], 1e-9)
        for prior, sym in chosen:
            # below every scored candidate, in the prior's order
            self.scores[sym] = 0.5 * floor * (0.1 + 0.9 * max(0.0, prior) / top)


def _twins(graph: RepoGraph, hole: Hole) -> dict[int, float]:
    """The file's other functions and methods (its ranking units) by how much their name shares with the
    hole's: `export_html` / `export_text` for `export_svg`. A word is weighted by its IDF over the file's
    units, so a prefix every unit has (`parse_` in a parser, `visit_` in a visitor) says nothing;
    0..1 (the shared words' weight over the two names' words)."""
    if hole.function == MODULE_SCOPE:
        return {}
    defs = graph.parsed[hole.path].definitions
    words: dict[int, set[str]] = {}
    for i, d in enumerate(defs):
        if d.kind in ("function", "method") and graph.outermost_function(hole.path, i) == i:
            words[i] = set(subwords(d.name))
    mine = words.get(hole.function) or set(subwords(defs[hole.function].name))
    if not mine or len(words) < 2:
        return {}
    df: Counter[str] = Counter(w for found in words.values() for w in found)
    idf = {w: math.log(len(words) / n) for w, n in df.items()}
    out = {}
    for unit, found in words.items():
        shared = found & mine
        if unit == hole.function or not shared:
            continue
        union = sum(idf.get(w, 0.0) for w in found | mine)
        if union > 0:
            out[unit] = sum(idf[w] for w in shared) / union
    return out


def _imported_files(graph: RepoGraph, path: str) -> set[str]:
    """Files `path` imports from, at any scope (a function's own imports too): the module of `from m
    import X` and of `import m`, and the file defining X."""
    found = set()
    for binding in graph.parsed[path].imports:
        if binding.star:
            continue
        target = graph.import_target(path, binding)
        if target is not None:
            found.add(target.path)
        module = graph.resolve_module(graph.absolute_module(path, binding), path)
        if module is not None:
            found.add(module)
    found.discard(path)
    return found


def _query_tokens(graph: RepoGraph, hole: Hole) -> dict[str, float]:
    """Subwords of the hole's name (x2), parameters, annotations, docstring and enclosing class."""
    weights: dict[str, float] = defaultdict(float)
    if hole.function == MODULE_SCOPE:
        return weights
    parsed = graph.parsed[hole.path]
    d = parsed.definitions[hole.function]
    for tok in subwords(d.name):
        weights[tok] += 2.0
    header = _slice(graph.sources[hole.path], d.start_byte, d.header_end)
    for word in _WORD.findall(header):
        if keyword.iskeyword(word):
            continue  # `def`, `async`, `lambda`: syntax, not vocabulary (`def` matched `macro_def`)
        for tok in subwords(word, types=False):
            weights[tok] += 1.0
    doc = _docstring(graph, hole.path, d)
    for word in set(_WORD.findall(doc)):
        for tok in subwords(word, types=False):
            weights[tok] += 0.5
    if d.kind == "method" and d.parent != MODULE_SCOPE:
        for tok in subwords(parsed.definitions[d.parent].name, types=False):
            weights[tok] += 0.5
    return weights


def _mentions(graph: RepoGraph, hole: Hole) -> list[Sym]:
    """Candidates named verbatim (distinctive names only) in the hole function's header or docstring."""
    if hole.function == MODULE_SCOPE:
        return []
    d = graph.parsed[hole.path].definitions[hole.function]
    text = _slice(graph.sources[hole.path], d.start_byte, d.header_end) + _docstring(graph, hole.path, d)
    # only identifier-looking words: snake_case, CamelCase, or quoted as code in the docstring
    quoted = set(_QUOTED.findall(text))
    words = {
        word
        for word in _WORD.findall(text)
        if word != d.name and ("_" in word.strip("_") or word[1:] != word[1:].lower() or word in quoted)
    }
    # the hole's own name says nothing alone (its header has it), but qualified it points somewhere:
    # "Defaults to `marshmallow.utils.get_value`" for a method `get_value` -> that module's function
    own_qualifiers = {m.group(1) for m in _QUALIFIED.finditer(text) if m.group(2) == d.name}
    if not words and not own_qualifiers:
        return []
    names = _NameIndex.of(graph)
    found = []
    for sym in names.tokens:
        definition = graph.definition(sym)
        if definition is None:
            continue
        if definition.name in words:
            found.append(sym)
        elif definition.name == d.name and sym.path != hole.path and own_qualifiers:
            owner = (
                graph.parsed[sym.path].definitions[definition.parent].name
                if definition.parent != MODULE_SCOPE
                else _module_stem(sym.path)
            )
            if owner in own_qualifiers:
                found.append(sym)
    return found


def _module_stem(path: str) -> str:
    """`pkg/utils.py` -> `utils`, `pkg/sub/__init__.py` -> `sub`."""
    stem = path.rsplit("/", 1)[-1].removesuffix(".py")
    if stem == "__init__":
        stem = path.rsplit("/", 2)[-2] if "/" in path else ""
    return stem


def _lexical(names: _NameIndex, query: dict[str, float], exclude: str = "") -> dict[Sym, float]:
    """IDF-weighted subword overlap with a coordination factor, normalised to [0, 1]; `total` also
    half-matches `subtotal`.

    Definitions of file `exclude` (the hole's own file: never candidates) are left out: the hole
    function matches its own name best, and as the maximum it would squash every real match."""
    if not query:
        return {}
    match = dict(query)
    long_query = sorted((t for t in query if len(t) >= 4), key=len, reverse=True)
    if long_query:
        pattern = re.compile("|".join(re.escape(t) for t in long_query))
        for tok in names.idf:
            if tok not in match and len(tok) >= 5:
                found = pattern.search(tok)
                if found:
                    match[tok] = 0.5 * query[found.group()]
    # and a word the query inflects: `render` for "rendering", `rewrite` / `handle` for "rewritten" /
    # "handling" (a shared stem: all but the last letter, five letters at least)
    stems = {q[:k]: q for q in query if len(q) >= 6 for k in range(5, len(q))}
    for tok in names.idf:
        if tok not in match and len(tok) >= 5:
            stem = stems.get(tok) or (stems.get(tok[:-1]) if len(tok) >= 6 else None)
            if stem is not None:
                match[tok] = 0.5 * query[stem]
    raw: dict[Sym, float] = {}
    for sym, toks in names.tokens.items():
        if sym.path == exclude:
            continue
        hits = [t for t in toks if t in match]
        total = sum(match[t] * names.idf.get(t, 0.0) for t in hits)
        if total:
            # several of the query's words in one name (`rewrite_traceback_stack` for "rewritten
            # exceptions ... traceback") say more than their sum: a coordination factor, as in IR
            # scoring; not for members, whose few-word names (`connect_timeout`) would crowd the rest
            coord = 1.0 if sym in names.members else 1.0 + COORDINATION * (len(hits) - 1)
            raw[sym] = total / math.sqrt(len(toks)) * coord
    top = max(raw.values(), default=0.0)
    return {sym: value / top for sym, value in raw.items()} if top else {}


def _import_uses(graph: RepoGraph, hole: Hole) -> tuple[list[tuple[bool, Sym, int]], Counter[Sym]]:
    """(from a star import?, target, uses outside the hole) for the imports visible at the hole and not
    shadowed there (a star import contributes every name it brings in), and the definitions reached as
    `module.NAME` outside the hole with their use counts."""
    parsed = graph.parsed[hole.path]
    visible_scopes = {MODULE_SCOPE}
    scope = hole.function
    while scope != MODULE_SCOPE:
        visible_scopes.add(scope)
        scope = parsed.definitions[scope].parent
    uses: Counter[tuple[str, Sym]] = Counter()
    through: Counter[Sym] = Counter()
    for ref, _sym in graph.resolved(hole.path):
        if hole.start_byte <= ref.byte < hole.end_byte:
            continue
        root = graph.resolve_name(hole.path, ref.scope, ref.chain[0])
        if root is None:
            continue
        uses[(ref.chain[0], root)] += 1
        if root.index == MODULE_SCOPE and len(ref.chain) > 1:
            member = _through_modules(graph, root, ref.chain[1:])
            if member is not None:
                through[member] += 1
    # an import named in `__all__` is the module's interface (a package re-exporting it), not a
    # name left unused by the missing body
    exported = set(parsed.dunder_all or ())
    out = []
    for binding in parsed.imports:
        if binding.scope not in visible_scopes:
            continue
        if binding.star:
            names = _star_names(graph, hole.path, binding)
        else:
            names = [(binding.local, graph.import_target(hole.path, binding))]
        for local, target in names:
            if target is None or target.path == hole.path:
                continue
            if graph.resolve_name(hole.path, hole.scope, local) != target:
                continue  # shadowed at the hole (a parameter or local of the same name)
            export = binding.scope == MODULE_SCOPE and not binding.star and local in exported
            out.append((binding.star, target, uses[(local, target)] + export))
    return out, through


def _module_members(graph: RepoGraph, path: str) -> list[Sym]:
    """What `module.NAME` can reach: the module's own top-level definitions and the definitions it
    re-exports (`from .wait import wait_for_write` in a package's `__init__.py`, or named in `__all__`)."""
    memo = graph.memo.setdefault("module_members", {})
    assert isinstance(memo, dict)
    found = memo.get(path)
    if found is None:
        index = graph.index[path]
        found = [Sym(path, i) for i in index.module_defs.values()]
        exported = graph.parsed[path].dunder_all or ()
        package = path == "__init__.py" or path.endswith("/__init__.py")
        for local in index.imports.get(MODULE_SCOPE, {}):
            # a plain module's imports are its own tools, not its interface
            if local not in index.module_defs and (package or local in exported):
                target = graph.export(path, local)
                if target is not None and target.is_definition and target.path != path:
                    found.append(target)
        memo[path] = found
    return found


def _public_names(names: _NameIndex, graph: RepoGraph, members: list[Sym]) -> list[Sym]:
    """A module's candidate members not named `_private`, one per name (`@overload` stubs)."""
    seen: dict[str, Sym] = {}
    for sym in members:
        d = graph.definition(sym)
        if d is not None and sym in names.tokens and not d.name.startswith("_"):
            seen[d.name] = sym
    return list(seen.values())


def _through_modules(graph: RepoGraph, module: Sym, parts: tuple[str, ...]) -> Sym | None:
    """The first definition an attribute chain rooted at a module reaches: `nodes.Const.x` -> Const,
    `os_mod.path.NAME` -> NAME (submodules and re-exports followed)."""
    sym: Sym | None = module
    for part in parts:
        sym = graph.member(sym, part) if sym is not None else None
        if sym is None or sym.is_definition:
            return sym
    return None


def _star_names(graph: RepoGraph, path: str, binding: ImportBinding) -> list[tuple[str, Sym | None]]:
    """The names `from m import *` binds: m's `__all__`, else its public module-level names."""
    src = graph.resolve_module(graph.absolute_module(path, binding), path)
    if src is None or src == path:
        return []
    exported = graph.parsed[src].dunder_all
    index = graph.index[src]
    if exported is None:
        names = (*index.module_defs, *index.imports.get(MODULE_SCOPE, {}))
        exported = tuple(n for n in names if not n.startswith("_"))
    return [(name, graph.export(src, name)) for name in dict.fromkeys(exported)]


def _co_usage(graph: RepoGraph, known: set[Sym], hole: Hole) -> dict[Sym, float]:
    """Definitions used by the scopes that use what the hole uses, weighted by overlap (Jaccard-like)."""
    table = _CoUsage.of(graph)
    hole_unit = (hole.path, hole.function)
    overlap: Counter[tuple[str, int]] = Counter()
    for sym in known:
        users = table.users.get(sym, ())
        if len(users) > 200:
            continue  # ubiquitous (a base class of everything) says nothing specific
        for key in users:
            if key != hole_unit:
                overlap[key] += 1
    result: dict[Sym, float] = defaultdict(float)
    for key, shared in overlap.items():
        syms = table.by_scope[key]
        sim = shared / (len(known) + len(syms) - shared)
        for sym in syms:
            if sym not in known:
                result[sym] += sim
    top = max(result.values(), default=0.0)
    return {sym: value / top for sym, value in result.items()} if top else {}


def _slice(source: bytes, start: int, end: int) -> str:
    return source[start:end].decode("utf-8", "replace")


def _docstring(graph: RepoGraph, path: str, d: Definition) -> str:
    if d.doc_start < 0:
        return ""
    return _slice(graph.sources[path], d.doc_start, d.doc_end)


def _parameters(graph: RepoGraph, sym: Sym) -> tuple[str, ...]:
    """Parameter names of a function / method, read from its header; not `self` / `cls` and not
    `*args` / `**kwargs` (their names say nothing of what is passed)."""
    d = graph.definition(sym)
    if d is None or d.kind not in ("function", "method"):
        return ()
    header = _slice(graph.sources[sym.path], d.start_byte, d.header_end)
    start = header.find("(", header.find("def "))
    if start < 0:
        return ()
    names, depth, expect = [], 0, True
    for match in _HEADER_TOKEN.finditer(header, start):
        tok = match.group()
        if tok in ("(", "[", "{"):
            depth += 1
            expect = depth == 1
        elif tok in (")", "]", "}"):
            depth -= 1
            if depth == 0:
                break
        elif depth != 1:
            continue
        elif tok == ",":
            expect = True
        elif tok in ("=", ":", "*", "**"):
            expect = False  # an annotation, a default, or a starred parameter follows
        elif expect and tok[0].isidentifier():
            names.append(tok)
            expect = False
    return tuple(n for n in names if n not in ("self", "cls"))


def _hole_vocabulary(graph: RepoGraph, hole: Hole) -> frozenset[str]:
    """Names the hole's body has at hand: its parameters and its class's constructor parameters."""
    if hole.function == MODULE_SCOPE:
        return frozenset()
    names = set(_parameters(graph, Sym(hole.path, hole.function)))
    parsed = graph.parsed[hole.path]
    d = parsed.definitions[hole.function]
    if d.kind == "method" and d.parent != MODULE_SCOPE:
        init = graph.index[hole.path].members.get(d.parent, {}).get("__init__")
        if init is not None and init != hole.function:
            names.update(_parameters(graph, Sym(hole.path, init)))
    return frozenset(names)
