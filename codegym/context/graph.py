"""The cross-file graph: module names, import resolution, scoped name lookup, class hierarchy, edges.

Resolution follows Python's rules closely enough for ranking: function scopes see enclosing function
scopes but not class bodies, `global`/`nonlocal` redirect, local bindings shadow imports, `from m import x`
follows re-exports (`__init__.py`, star imports honouring `__all__`) and falls back to the submodule
`m.x`, and `self.name` / `cls.name` / `super().name` walk the class hierarchy. Everything is memoised:
a graph is immutable once built, and a changed file means a new graph (parses come from the cache).

A graph is either full (every file parsed up front) or lazy (`RepoGraph.lazy`): files are parsed when
resolution first reaches them, and the repository-wide tables (in-degree, users, and the ranking's
tables built by iterating `graph.parsed`) cover only the graph's `covered` files. With every file
covered a lazy graph gives the same answers as a full one.
"""

from __future__ import annotations

import bisect
from collections import defaultdict
from collections.abc import Callable, Collection, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import NamedTuple, TypeVar

from codegym.context.model import MODULE_SCOPE, Definition, ImportBinding, ParsedFile, Reference
from codegym.context.parser import LIGHT_PREFIX
from codegym.context.repo import module_aliases, module_names


class Sym(NamedTuple):
    """A resolved target: a definition (`index` >= 0) or a module (`index` == MODULE_SCOPE) of `path`.

    `instance` marks `self`-like receivers: member lookup works as on the class, but the receiver itself
    is not a reference to the class.
    """

    path: str
    index: int
    instance: bool = False

    @property
    def is_definition(self) -> bool:
        return self.index != MODULE_SCOPE and not self.instance


@dataclass
class FileIndex:
    """Lookup tables derived from one ParsedFile."""

    module_defs: dict[str, int] = field(default_factory=dict)
    members: dict[int, dict[str, int]] = field(default_factory=dict)  # def index -> child name -> index
    imports: dict[int, dict[str, ImportBinding]] = field(default_factory=dict)  # scope -> local -> binding
    stars: list[ImportBinding] = field(default_factory=list)

    @classmethod
    def build(cls, parsed: ParsedFile) -> FileIndex:
        index = cls()
        order = sorted(range(len(parsed.definitions)), key=lambda i: parsed.definitions[i].start_byte)
        for i in order:  # later definitions of a name win, as at run time
            d = parsed.definitions[i]
            table = index.module_defs if d.parent == MODULE_SCOPE else index.members.setdefault(d.parent, {})
            if d.name in table and _is_accessor(d):
                continue  # `@x.setter def x`: the property stays the getter (what readers call)
            table[d.name] = i
        for b in sorted(parsed.imports, key=lambda b: b.line):
            if b.star:
                if b.scope == MODULE_SCOPE:
                    index.stars.append(b)
            else:
                index.imports.setdefault(b.scope, {})[b.local] = b
        return index


def interface(parsed: ParsedFile) -> tuple[object, ...]:
    """What other files can see of a file: its reachable definitions (module level and class
    bodies, in order, with bases), its imports in order, `__all__` and module-level bindings."""
    defs = parsed.definitions
    reachable = []
    order = sorted(range(len(defs)), key=lambda i: defs[i].start_byte)
    position = {}
    for i in order:
        d = defs[i]
        if d.parent != MODULE_SCOPE and (d.parent not in position or defs[d.parent].kind != "class"):
            continue  # inside a function: no other file can name it
        position[i] = len(reachable)
        parent = position.get(d.parent, -1) if d.parent != MODULE_SCOPE else -1
        reachable.append((d.name, d.kind, parent, d.bases, d.decorators))
    module_imports = sorted((b for b in parsed.imports if b.scope == MODULE_SCOPE), key=lambda b: b.line)
    imports = [(b.local, b.module, b.level, b.name, b.binds_top, b.star) for b in module_imports]
    # module-level names and imports interleaved by line: "later binding wins" compares lines
    events = sorted(
        [(defs[i].start_line, 0, defs[i].name) for i in order if defs[i].parent == MODULE_SCOPE]
        + [(b.line, 1, b.local) for b in parsed.imports if b.scope == MODULE_SCOPE]
    )
    return (
        tuple(reachable),
        tuple(imports),
        tuple((k, n) for _, k, n in events),
        parsed.dunder_all,
        parsed.module_bound,
    )


def reachable_indices(parsed: ParsedFile) -> list[int]:
    """Indices of the definitions other files can reach (module level, class bodies), in source order."""
    defs = parsed.definitions
    kept: set[int] = set()
    out = []
    for i in sorted(range(len(defs)), key=lambda i: defs[i].start_byte):
        d = defs[i]
        if d.parent == MODULE_SCOPE or (d.parent in kept and defs[d.parent].kind == "class"):
            kept.add(i)
            out.append(i)
    return out


V = TypeVar("V")


class LazyMap(Mapping[str, V]):
    """Per-file values computed on first access (parses, file indices).

    Lookup and membership cover every file of `universe`; iteration and len cover only `keys`, the
    files the graph's repository-wide tables are built over (code that iterates `graph.parsed` to
    build such a table thereby sees only those).
    """

    def __init__(
        self,
        universe: Collection[str],
        keys: Collection[str],
        compute: Callable[[str], V],
        done: dict[str, V] | None = None,
    ) -> None:
        self._universe = universe
        self._keys = keys
        self._compute = compute
        self._done: dict[str, V] = {} if done is None else done

    def __getitem__(self, path: str) -> V:
        hit = self._done.get(path)
        if hit is None:
            if path not in self._universe:
                raise KeyError(path)
            hit = self._done[path] = self._compute(path)
        return hit

    def __contains__(self, path: object) -> bool:
        return path in self._universe

    def __iter__(self) -> Iterator[str]:
        return iter(self._keys)

    def __len__(self) -> int:
        return len(self._keys)

    def computed(self) -> dict[str, V]:
        """What has been computed so far (shared: views of one repository state share it)."""
        return self._done

    def view(self, keys: Collection[str], compute: Callable[[str], V] | None = None) -> LazyMap[V]:
        """The same values (shared, computed once) iterated over other keys; `compute` replaces how
        values not computed yet are made."""
        return LazyMap(self._universe, keys, compute or self._compute, self._done)

    def replaced(
        self, universe: Collection[str], path: str, value: V, compute: Callable[[str], V]
    ) -> LazyMap[V]:
        """A copy with one file's value replaced (values computed later are not shared back)."""
        return LazyMap(universe, self._keys, compute, {**self._done, path: value})


def _is_accessor(d: Definition) -> bool:
    return any(dec in (f"{d.name}.setter", f"{d.name}.deleter") for dec in d.decorators)


class RepoGraph:
    """Resolution over a set of parsed files; build one per repository state."""

    def __init__(self, sources: Mapping[str, bytes], parsed: Mapping[str, ParsedFile], root_name: str = ""):
        self.sources = dict(sources)
        self.parsed: Mapping[str, ParsedFile] = dict(parsed)  # a LazyMap in lazy graphs
        self.index: Mapping[str, FileIndex] = {path: FileIndex.build(p) for path, p in self.parsed.items()}
        self.module_of = module_names(self.parsed, root_name)
        self.path_of = module_aliases(self.module_of)
        self.root_name = root_name
        self._names: dict[tuple[str, int, str], Sym | None] = {}
        self._refs: dict[tuple[str, int, tuple[str, ...]], Sym | None] = {}
        self._exports: dict[tuple[str, str], Sym | None] = {}
        self._mro: dict[Sym, list[Sym]] = {}
        self._resolved: dict[str, list[tuple[Reference, Sym | None]]] = {}
        self._in_degree: dict[Sym, int] | None = None
        self._users: dict[Sym, set[tuple[str, int]]] | None = None
        self.memo: dict[str, object] = {}  # derived tables other modules attach (ranking's name index)
        self.renumbered: tuple[str, dict[int, int]] | None = None  # set by `updated`: moved indices
        self._parse: Callable[[str, bytes], ParsedFile] | None = None  # lazy graphs: parses a file
        self._light: Callable[[str, bytes], ParsedFile] | None = None  # ... without its references
        self.focus: str | None = None  # lazy graphs: the file whose neighbourhood is covered

    @classmethod
    def lazy(
        cls,
        sources: Mapping[str, bytes],
        parse: Callable[[str, bytes], ParsedFile],
        root_name: str = "",
        covered: Iterable[str] = (),
        light: Callable[[str, bytes], ParsedFile] | None = None,
    ) -> RepoGraph:
        """A graph that parses a file when resolution first needs it: `light(path, source)` if given
        (a parse without references, enough to resolve names into the file), else `parse`, which
        `resolved` uses for a file whose references are needed. Its repository-wide tables cover
        only `covered` (see `restricted`); `prime` hands it full parses made in a batch."""
        graph = cls.__new__(cls)
        graph.sources = dict(sources)
        graph._parse, graph._light = parse, light
        keys = tuple(dict.fromkeys(covered))
        first = light or parse
        graph.parsed = LazyMap(graph.sources, keys, lambda p: first(p, graph.sources[p]))
        graph.index = LazyMap(graph.sources, keys, lambda p: FileIndex.build(graph.parsed[p]))
        graph.module_of = module_names(graph.sources, root_name)
        graph.path_of = module_aliases(graph.module_of)
        graph.root_name = root_name
        graph._names, graph._refs, graph._exports, graph._mro, graph._resolved = {}, {}, {}, {}, {}
        graph._in_degree = graph._users = None
        graph.memo, graph.renumbered, graph.focus = {}, None, None
        return graph

    def prime(self, parsed: Mapping[str, ParsedFile]) -> None:
        """Hand a lazy graph parses made in a batch, before resolution asks for them one by one."""
        if isinstance(self.parsed, LazyMap):
            self.parsed.computed().update(parsed)

    @property
    def is_lazy(self) -> bool:
        return isinstance(self.parsed, LazyMap)

    @property
    def covered(self) -> tuple[str, ...]:
        """The files the repository-wide tables (in-degree, users, ranking's tables) are built over."""
        return tuple(self.parsed)

    def restricted(
        self,
        covered: Iterable[str],
        focus: str | None = None,
        light: Callable[[str, bytes], ParsedFile] | None = None,
    ) -> RepoGraph:
        """A lazy graph of the same repository state whose repository-wide tables cover `covered`.

        Parses and resolutions (which do not depend on what is covered) are shared with this graph;
        in-degree, users and the memo tables are the new graph's own. `light` replaces how files
        not parsed yet are parsed.
        """
        if not isinstance(self.parsed, LazyMap) or not isinstance(self.index, LazyMap):
            raise TypeError("restricted() needs a lazy graph")
        keys = tuple(dict.fromkeys(covered))
        graph = RepoGraph.__new__(RepoGraph)
        graph.__dict__.update(self.__dict__)
        first = light or self._light or self._parse
        assert first is not None
        graph._light = light or self._light
        graph.parsed = self.parsed.view(keys, lambda p: first(p, graph.sources[p]))
        graph.index = self.index.view(keys, lambda p: FileIndex.build(graph.parsed[p]))
        graph._in_degree = graph._users = None
        graph.memo, graph.renumbered, graph.focus = {}, None, focus
        return graph

    # --- modules and imports -----------------------------------------------------------------------
    def definition(self, sym: Sym) -> Definition | None:
        if sym.index == MODULE_SCOPE:
            return None
        return self.parsed[sym.path].definitions[sym.index]

    def resolve_module(self, name: str, from_path: str | None = None) -> str | None:
        if not name:
            return None
        path = self.path_of.get(name)
        if path is not None:
            return path
        if self.root_name and name.split(".", 1)[0] != self.root_name:
            # a repo given without its package directory name (task repos): `pkg.core` -> `core`
            path = self.path_of.get(f"{self.root_name}.{name}")
        if path is None and "." in name and not self.root_name:
            path = self.path_of.get(name.split(".", 1)[1])
        if path is None and from_path is not None and "/" in from_path:
            # scripts import their siblings (sys.path[0] is the script's directory)
            base = from_path.rsplit("/", 1)[0]
            sibling = self.module_of.get(f"{base}/{name.replace('.', '/')}.py")
            path = self.path_of.get(sibling) if sibling else None
        return path

    def absolute_module(self, path: str, binding: ImportBinding) -> str:
        if binding.level == 0:
            return binding.module
        package = self.module_of.get(path, "")
        if not path.endswith("__init__.py"):
            package = package.rsplit(".", 1)[0] if "." in package else ""
        for _ in range(binding.level - 1):
            package = package.rsplit(".", 1)[0] if "." in package else ""
        if binding.module:
            return f"{package}.{binding.module}" if package else binding.module
        return package

    def import_target(self, path: str, binding: ImportBinding) -> Sym | None:
        module = self.absolute_module(path, binding)
        if binding.name is None:
            target = module.split(".", 1)[0] if binding.binds_top else module
            found = self.resolve_module(target, path)
            return Sym(found, MODULE_SCOPE) if found else None
        found = self.resolve_module(module, path) if module else None
        if found is None and binding.level and not module:
            found = self._package_path(path, binding.level)
        if found is not None:
            sym = self.export(found, binding.name)
            if sym is not None:
                return sym
        sub = self.resolve_module(f"{module}.{binding.name}" if module else binding.name, path)
        return Sym(sub, MODULE_SCOPE) if sub else None

    def _package_path(self, path: str, level: int) -> str | None:
        """`from . import x` in a repo whose root package has no name: the directory's __init__.py."""
        parts = path.split("/")[:-1]
        parts = parts[: len(parts) - (level - 1)] if level > 1 else parts
        init = "/".join([*parts, "__init__.py"]) if parts else "__init__.py"
        return init if init in self.parsed else None

    def export(self, path: str, name: str) -> Sym | None:
        """What `from <module at path> import name` yields."""
        key = (path, name)
        if key in self._exports:
            return self._exports[key]
        self._exports[key] = None  # cycle guard: a re-export loop resolves to nothing
        result = self._module_level(path, name)
        if result is None:
            module = self.module_of.get(path, "")
            sub = self.resolve_module(f"{module}.{name}" if module else name)
            result = Sym(sub, MODULE_SCOPE) if sub else None
        self._exports[key] = result
        return result

    def _module_level(self, path: str, name: str) -> Sym | None:
        index = self.index[path]
        parsed = self.parsed[path]
        def_index = index.module_defs.get(name)
        binding = index.imports.get(MODULE_SCOPE, {}).get(name)
        if binding is not None:
            target = self.import_target(path, binding)
            if target is not None and (
                def_index is None or binding.line >= parsed.definitions[def_index].start_line
            ):
                return target
        if def_index is not None:
            return Sym(path, def_index)
        for star in index.stars:
            src = self.resolve_module(self.absolute_module(path, star), path)
            if src is None or src == path:
                continue
            exported = self.parsed[src].dunder_all
            if (exported is not None and name in exported) or (exported is None and not name.startswith("_")):
                found = self.export(src, name)
                if found is not None:
                    return found
        return None

    # --- names and members -------------------------------------------------------------------------
    def resolve_name(self, path: str, scope: int, name: str) -> Sym | None:
        key = (path, scope, name)
        if key in self._names:
            return self._names[key]
        result = self._resolve_name(path, scope, name)
        self._names[key] = result
        return result

    def _resolve_name(self, path: str, scope: int, name: str) -> Sym | None:
        parsed = self.parsed[path]
        current, innermost = scope, True
        while current != MODULE_SCOPE:
            d = parsed.definitions[current]
            sc = parsed.scopes.get(current)
            if d.kind == "class" and not innermost:
                current = d.parent  # class bodies are not visible from functions nested in them
                continue
            if sc is not None:
                if name in sc.globals:
                    break
                if name in sc.bound and name not in sc.nonlocals:
                    return self._local(path, current, name)
            innermost = False
            current = d.parent
        return self._module_level(path, name)

    def _local(self, path: str, scope: int, name: str) -> Sym | None:
        index = self.index[path]
        binding = index.imports.get(scope, {}).get(name)
        if binding is not None:
            return self.import_target(path, binding)
        child = index.members.get(scope, {}).get(name)
        if child is not None:
            return Sym(path, child)
        parsed = self.parsed[path]
        sc = parsed.scopes.get(scope)
        d = parsed.definitions[scope]
        if sc is not None and d.kind == "method" and name == sc.first_param and name in ("self", "cls"):
            return Sym(path, d.parent, instance=True)
        return None  # a plain local variable

    def member(self, sym: Sym, attr: str) -> Sym | None:
        if sym.index == MODULE_SCOPE:
            return self.export(sym.path, attr)
        d = self.definition(sym)
        if d is None or d.kind != "class":
            return None
        for cls in self.mro(Sym(sym.path, sym.index)):
            child = self.index[cls.path].members.get(cls.index, {}).get(attr)
            if child is not None:
                return Sym(cls.path, child)
        return None

    def mro(self, cls: Sym) -> list[Sym]:
        """The class and its resolvable ancestors, depth-first left-to-right without repeats."""
        if cls in self._mro:
            return self._mro[cls]
        self._mro[cls] = [cls]  # cycle guard
        order = [cls]
        d = self.definition(cls)
        for base in d.bases if d is not None else ():
            parts = base.split(".")
            target = self.resolve_name(cls.path, d.parent, parts[0]) if d is not None else None
            for part in parts[1:]:
                target = self.member(target, part) if target is not None else None
            base_def = self.definition(target) if target is not None else None
            if target is None or base_def is None or base_def.kind != "class":
                continue
            for ancestor in self.mro(Sym(target.path, target.index)):
                if ancestor not in order:
                    order.append(ancestor)
        self._mro[cls] = order
        return order

    def enclosing_class(self, path: str, scope: int) -> Sym | None:
        defs = self.parsed[path].definitions
        while scope != MODULE_SCOPE:
            d = defs[scope]
            if d.kind == "method":
                return Sym(path, d.parent)
            scope = d.parent
        return None

    def resolve_ref(self, path: str, ref: Reference) -> Sym | None:
        key = (path, ref.scope, ref.chain)
        if key in self._refs:
            return self._refs[key]
        result = self._resolve_ref(path, ref)
        self._refs[key] = result
        return result

    def _resolve_ref(self, path: str, ref: Reference) -> Sym | None:
        chain = ref.chain
        if chain[0] == "super()":
            cls = self.enclosing_class(path, ref.scope)
            if cls is None or len(chain) < 2:
                return None
            for ancestor in self.mro(cls)[1:]:
                child = self.index[ancestor.path].members.get(ancestor.index, {}).get(chain[1])
                if child is not None:
                    return Sym(ancestor.path, child)
            return None
        sym = self.resolve_name(path, ref.scope, chain[0])
        for part in chain[1:]:
            if sym is None:
                break
            nxt = self.member(sym, part)
            if nxt is None:
                break
            sym = nxt
        return sym

    # --- incremental update ------------------------------------------------------------------------
    def updated(self, path: str, source: bytes, parsed: ParsedFile) -> RepoGraph | None:
        """The graph with one file's content replaced, re-resolving only that file.

        Valid when the edit keeps the file's interface (what other files can resolve: module-level
        and class-level names in order, imports, bases, `__all__`), the common case of editing or
        blanking a body. Then no other file's resolution changes except that the edited file's
        definitions may have moved to other indices: the dependents' resolved references (files
        whose references point into the edited file) are renumbered, every other file's are reused,
        and the repository-wide tables are patched (the edited file's old contributions subtracted,
        the new ones added, the dependents' renumbered). Returns None when the interface changed
        (the caller rebuilds).
        """
        old = self.parsed.get(path)
        if old is None or interface(old) != interface(parsed):
            return None
        remap = dict(zip(reachable_indices(old), reachable_indices(parsed), strict=True))
        moved = any(a != b for a, b in remap.items())

        def renumber(sym: Sym | None) -> Sym | None:
            if sym is None or sym.path != path or sym.index == MODULE_SCOPE:
                return sym
            return Sym(path, remap[sym.index], sym.instance)

        new = RepoGraph.__new__(RepoGraph)
        new.sources = {**self.sources, path: source}
        if isinstance(self.parsed, LazyMap) and isinstance(self.index, LazyMap):
            if path not in self.covered:
                return None  # the patch below only knows the covered files' references
            first = self._light or self._parse
            assert first is not None
            new._parse, new._light, new.focus = self._parse, self._light, self.focus
            new.parsed = self.parsed.replaced(new.sources, path, parsed, lambda p: first(p, new.sources[p]))
            new.index = self.index.replaced(
                new.sources, path, FileIndex.build(parsed), lambda p: FileIndex.build(new.parsed[p])
            )
        else:
            new._parse, new._light, new.focus = None, None, None
            new.parsed = {**self.parsed, path: parsed}
            new.index = {**self.index, path: FileIndex.build(parsed)}
        new.module_of, new.path_of, new.root_name = self.module_of, self.path_of, self.root_name
        new._names, new._refs, new._exports, new._mro = {}, {}, {}, {}
        dependents = self.dependents(path) if moved else set()
        covered = set(self.parsed)
        # an uncovered file resolved on demand may point into the edited file without being among
        # the dependents (which only the covered files' references make): it resolves again
        new._resolved = {
            p: rows
            for p, rows in self._resolved.items()
            if p != path and p not in dependents and (p in covered or not moved)
        }
        for p in dependents:
            new._resolved[p] = [(ref, renumber(sym)) for ref, sym in self.resolved(p)]
        new._in_degree = new._users = None
        new.memo = {}
        new.renumbered = (path, remap) if moved else None
        if self._users is not None and self._in_degree is not None:
            in_degree, users = dict(self._in_degree), dict(self._users)  # sets copied before a change
            popped = [(key, users.pop(key)) for key in [Sym(path, i) for i in remap] if key in users]
            for key, _ in popped:
                in_degree.pop(key, None)
            for key, holders in popped:
                kept = {h for h in holders if h[0] != path}  # the edited file's own come back below
                if kept:
                    users[renumber(key)] = kept  # type: ignore[index]
                    in_degree[renumber(key)] = len(kept)  # type: ignore[index]
            copied: set[Sym] = set()
            for graph, sign in ((self, -1), (new, 1)):
                for ref, sym in graph.resolved(path):
                    if sym is None or not sym.is_definition or sym.path == path:
                        continue
                    source_key = (path, ref.scope)
                    if sym not in copied:
                        users[sym] = set(users.get(sym, ()))
                        copied.add(sym)
                    holders = users[sym]
                    if sign < 0 and source_key in holders:
                        holders.discard(source_key)
                        in_degree[sym] -= 1
                    elif sign > 0 and source_key not in holders:
                        holders.add(source_key)
                        in_degree[sym] = in_degree.get(sym, 0) + 1
            for ref, sym in new.resolved(path):  # references of the edited file into itself
                if sym is not None and sym.is_definition and sym.path == path:
                    holders = users.setdefault(sym, set())
                    if (path, ref.scope) not in holders:
                        holders.add((path, ref.scope))
                        in_degree[sym] = in_degree.get(sym, 0) + 1
            new._in_degree = {k: v for k, v in in_degree.items() if v > 0}
            new._users = {k: v for k, v in users.items() if v}
        for key, table in self.memo.items():
            patch = getattr(table, "updated", None)
            if patch is not None:  # derived tables that know how to patch themselves (ranking's)
                new.memo[key] = patch(self, new, path, renumber)
        return new

    def dependents(self, path: str) -> set[str]:
        """Files other than `path` whose resolved references point at a definition of `path`."""
        if self._users is None:
            self._edges()
        assert self._users is not None
        found: set[str] = set()
        for i in reachable_indices(self.parsed[path]):
            found.update(p for p, _ in self._users.get(Sym(path, i), ()))
        found.discard(path)
        return found

    # --- repository-wide edges ---------------------------------------------------------------------
    def resolved(self, path: str) -> list[tuple[Reference, Sym | None]]:
        """Every reference of a file with its target, in source order (memoised)."""
        found = self._resolved.get(path)
        if found is None:
            parsed = self.parsed[path]
            if parsed.content_hash.startswith(LIGHT_PREFIX) and self._parse is not None:
                # a lazy graph parsed this file without its references: parse it fully now (same
                # definitions, so every Sym into it stays valid)
                parsed = self._parse(path, self.sources[path])
                if isinstance(self.parsed, LazyMap):
                    self.parsed.computed()[path] = parsed
            found = [(ref, self.resolve_ref(path, ref)) for ref in parsed.references]
            self._resolved[path] = found
        return found

    def targets_in(self, path: str, start_byte: int, end_byte: int) -> list[tuple[Reference, Sym]]:
        """Resolved definition targets of the references inside a byte range of a file."""
        rows = self.resolved(path)
        lo = bisect.bisect_left(rows, start_byte, key=lambda row: row[0].byte)
        out = []
        for ref, sym in rows[lo:]:
            if ref.byte >= end_byte:
                break
            if sym is not None and sym.is_definition:
                out.append((ref, sym))
        return out

    def _edges(self) -> None:
        in_degree: dict[Sym, int] = defaultdict(int)
        users: dict[Sym, set[tuple[str, int]]] = defaultdict(set)
        for path in self.parsed:
            for ref, sym in self.resolved(path):
                if sym is None or not sym.is_definition:
                    continue
                source = (path, ref.scope)
                if source not in users[sym]:
                    users[sym].add(source)
                    in_degree[sym] += 1
        self._in_degree = dict(in_degree)
        self._users = dict(users)

    def in_degree(self) -> dict[Sym, int]:
        """Number of distinct scopes (functions, classes, modules) referencing each definition."""
        if self._in_degree is None:
            self._edges()
        assert self._in_degree is not None
        return self._in_degree

    def users(self, sym: Sym) -> set[tuple[str, int]]:
        """(path, scope) pairs whose code references `sym`."""
        if self._users is None:
            self._edges()
        assert self._users is not None
        return self._users.get(sym, set())

    def outermost_function(self, path: str, scope: int) -> int:
        """The top-level function or method containing a scope (its unit of meaning for ranking)."""
        defs = self.parsed[path].definitions
        unit = scope
        while scope != MODULE_SCOPE:
            d = defs[scope]
            if d.kind in ("function", "method"):
                unit = scope
            if d.kind == "class" or d.kind == "method":
                break
            scope = d.parent
        return unit
