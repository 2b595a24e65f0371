"""Parse one Python file with tree-sitter into definitions, imports, references and scopes.

One query (run by a QueryCursor in C) captures the few node kinds we need; Python only visits the
captured nodes, which keeps a 40k-line package well under a second. Files with syntax errors still
yield whatever tree-sitter recovered.
"""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field
from typing import Any

from codegym.context.model import (
    MODULE_SCOPE,
    Definition,
    ImportBinding,
    ParsedFile,
    Reference,
    Scope,
)

# a quoted annotation, at any of the positions below (a whole annotation, nested up to three subscripts
# deep, either side of `|`): its names are references
_ANN = "(string (string_content) @annotation_text)"
_QUERY = """
(function_definition) @func
(class_definition) @class
(import_statement) @import
(import_from_statement) @import_from
(future_import_statement) @future
(assignment left: (_) @assign_left)
(augmented_assignment left: (_) @aug_left)
(for_statement left: (_) @for_left)
(for_in_clause left: (_) @for_left)
(as_pattern_target) @as_target
(named_expression name: (identifier) @walrus)
(global_statement (identifier) @global)
(nonlocal_statement (identifier) @nonlocal)
(parameters) @params
(lambda_parameters) @params
(keyword_argument name: (identifier) @skip)
(attribute attribute: (identifier) @skip)
(attribute object: [(identifier) (attribute)] attribute: (identifier)) @chain
(call function: (_) @callee)
(type {_ANN})
(type (subscript subscript: {_ANN}))
(type (subscript subscript: (subscript subscript: {_ANN})))
(type (subscript subscript: (subscript subscript: (subscript subscript: {_ANN}))))
(type (binary_operator [left: {_ANN} right: {_ANN}]))
(if_statement condition: (comparison_operator (identifier) @main_guard (string)))
(identifier) @id
""".replace("{_ANN}", _ANN)
# the light query: what definitions, imports and scopes need, without the references (the identifiers,
# calls and attribute chains are two thirds of a full parse's captures and of its extraction time)
_LIGHT_DROPPED = ("(keyword_argument", "(attribute", "(call ", "(type ", "(identifier) @id")
_LIGHT_QUERY = "\n".join(line for line in _QUERY.splitlines() if not line.startswith(_LIGHT_DROPPED))
LIGHT_PREFIX = "light:"  # content_hash of a light parse: the caches keep both kinds apart
_ORDERED_CAPTURES = ("import", "import_from", "future", "assign_left", "aug_left", "for_left", "as_target")
_DOTTED = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_NOT_NAMES = frozenset({"None", "True", "False", "and", "or", "not", "in", "is", "lambda"})

_TARGET_CONTAINERS = frozenset(
    {"pattern_list", "tuple_pattern", "list_pattern", "tuple", "list", "parenthesized_expression"}
)
_SPLATS = frozenset({"list_splat_pattern", "dictionary_splat_pattern", "list_splat"})


def _text(node: Any) -> str:
    return node.text.decode("utf-8", "replace")


def _target_names(node: Any, out: list[Any]) -> None:
    """Identifier nodes bound by an assignment / for / with target (attributes and subscripts bind none)."""
    kind = node.type
    if kind == "identifier":
        out.append(node)
    elif kind in _TARGET_CONTAINERS or kind in _SPLATS or kind == "as_pattern_target":
        for child in node.named_children:
            _target_names(child, out)


def _param_names(params: Any) -> list[Any]:
    """Identifier nodes naming the parameters of a `parameters` / `lambda_parameters` node."""
    names: list[Any] = []
    for child in params.named_children:
        kind = child.type
        if kind == "identifier":
            names.append(child)
        elif kind in ("default_parameter", "typed_default_parameter"):
            name = child.child_by_field_name("name")
            if name is not None and name.type == "identifier":
                names.append(name)
        elif kind == "typed_parameter" or kind in _SPLATS:
            for sub in child.named_children:
                if sub.type == "identifier":
                    names.append(sub)
                    break
                if sub.type in _SPLATS:
                    names.extend(s for s in sub.named_children if s.type == "identifier")
                    break
    return names


@dataclass
class _ScopeBuilder:
    bound: set[str] = field(default_factory=set)
    globals: set[str] = field(default_factory=set)
    nonlocals: set[str] = field(default_factory=set)
    first_param: str | None = None


class _Scopes:
    """Innermost function/class body containing a byte offset (bodies nest, so a sorted list suffices)."""

    def __init__(self) -> None:
        self.starts: list[int] = []
        self.spans: list[tuple[int, int, int]] = []  # (body_start, body_end, def index)
        self.parent: dict[int, int] = {}
        self.span: dict[int, tuple[int, int]] = {}

    def add(self, start: int, end: int, index: int, parent: int) -> None:
        # defs arrive in source order, so appending keeps `starts` sorted
        self.starts.append(start)
        self.spans.append((start, end, index))
        self.parent[index] = parent
        self.span[index] = (start, end)

    def at(self, byte: int) -> int:
        pos = bisect.bisect_right(self.starts, byte) - 1
        if pos < 0:
            return MODULE_SCOPE
        start, end, index = self.spans[pos]
        while index != MODULE_SCOPE and not (start <= byte < end):
            index = self.parent[index]
            if index == MODULE_SCOPE:
                break
            start, end = self.span[index]
        return index


class PythonParser:
    """Owns the tree-sitter language, parser and compiled query; make one per engine, not at import."""

    def __init__(self) -> None:
        import tree_sitter
        import tree_sitter_python

        self._ts = tree_sitter
        self._language = tree_sitter.Language(tree_sitter_python.language())
        self._parser = tree_sitter.Parser(self._language)
        self._query = tree_sitter.Query(self._language, _QUERY)
        self._light_query: Any = None

    def parse(self, source: bytes, content_hash: str = "", *, light: bool = False) -> ParsedFile:
        """Parse a file; `light` leaves out the references (`references == ()`) and marks the
        content hash with LIGHT_PREFIX. Everything else is what a full parse gives: enough to
        resolve names into the file, which is all a lazy graph needs of most files it reaches."""
        tree = self._parser.parse(source)
        root = tree.root_node
        query = self._query
        if light:
            if self._light_query is None:
                self._light_query = self._ts.Query(self._language, _LIGHT_QUERY)
            query = self._light_query
            content_hash = LIGHT_PREFIX + content_hash
        caps: dict[str, list[Any]] = self._ts.QueryCursor(query).captures(root)
        for key in _ORDERED_CAPTURES:
            # capture lists do not always come in source order; definition indices and import order
            # must not depend on it (incremental updates compare parses of the same file)
            if key in caps:
                caps[key] = sorted(caps[key], key=lambda n: (n.start_byte, n.end_byte))
        return _Extractor(source, caps, root.has_error, content_hash).run()


class _Extractor:
    def __init__(self, source: bytes, caps: dict[str, list[Any]], has_errors: bool, content_hash: str):
        self.source = source
        self.caps = caps
        self.has_errors = has_errors
        self.content_hash = content_hash
        self.defs: list[Definition] = []
        self.scopes = _Scopes()
        self.scope_data: dict[int, _ScopeBuilder] = {}
        self.module_bound: set[str] = set()
        self.skip: set[int] = set()  # start bytes of identifiers that are not loads
        self.imports: list[ImportBinding] = []
        self.dunder_all: list[str] | None = None
        self.main_blocks: list[tuple[int, int]] = []
        decoded = source.decode("utf-8", "replace")
        # ASCII sources (nearly all) can be sliced as str with byte offsets, which is much faster
        self._ascii = decoded if len(decoded) == len(source) else None

    def text(self, start: int, end: int) -> str:
        if self._ascii is not None:
            return self._ascii[start:end]
        return self.source[start:end].decode("utf-8", "replace")

    def _bind(self, scope: int, name: str) -> None:
        if scope == MODULE_SCOPE:
            self.module_bound.add(name)
        else:
            self.scope_data[scope].bound.add(name)

    def run(self) -> ParsedFile:
        self._definitions()
        self._imports()
        self._bindings()
        refs = self._references() if not self.content_hash.startswith(LIGHT_PREFIX) else []
        scopes = {
            i: Scope(frozenset(b.bound), frozenset(b.globals), frozenset(b.nonlocals), b.first_param)
            for i, b in self.scope_data.items()
        }
        return ParsedFile(
            content_hash=self.content_hash,
            definitions=tuple(self.defs),
            imports=tuple(self.imports),
            references=tuple(refs),
            scopes=scopes,
            module_bound=frozenset(self.module_bound),
            dunder_all=tuple(self.dunder_all) if self.dunder_all is not None else None,
            has_errors=self.has_errors,
            line_count=self.source.count(b"\n") + (0 if self.source.endswith(b"\n") else 1),
        )

    # --- definitions -------------------------------------------------------------------------------
    def _definitions(self) -> None:
        nodes = [(n, "function") for n in self.caps.get("func", ())]
        nodes += [(n, "class") for n in self.caps.get("class", ())]
        nodes.sort(key=lambda item: item[0].start_byte)
        for node, kind in nodes:
            name_node = node.child_by_field_name("name")
            if name_node is None:
                continue
            self.skip.add(name_node.start_byte)
            parent = self.scopes.at(node.start_byte)
            parent_def = self.defs[parent] if parent != MODULE_SCOPE else None
            name = _text(name_node)
            if kind == "function" and parent_def is not None and parent_def.kind == "class":
                kind = "method"
            qual = f"{parent_def.qualname}.{name}" if parent_def else name
            decorated = node.parent is not None and node.parent.type == "decorated_definition"
            outer = node.parent if decorated else node
            body = node.child_by_field_name("body")
            header_end = _header_end(node, body)
            doc_start = doc_end = -1
            if body is not None and body.named_child_count:
                first = body.named_child(0)
                if first.type == "expression_statement" and first.named_child_count:
                    lit = first.named_child(0)
                    if lit.type == "string":
                        doc_start, doc_end = lit.start_byte, lit.end_byte
            bases: tuple[str, ...] = ()
            if kind == "class":
                supers = node.child_by_field_name("superclasses")
                if supers is not None:
                    bases = tuple(_base_text(b) for b in supers.named_children if _base_text(b))
            decorators: tuple[str, ...] = ()
            if decorated:
                decorators = tuple(_decorator_text(c) for c in outer.named_children if c.type == "decorator")
            index = len(self.defs)
            self.defs.append(
                Definition(
                    name=name,
                    qualname=qual,
                    kind=kind,  # type: ignore[arg-type]
                    parent=parent,
                    start_byte=outer.start_byte,
                    header_end=header_end,
                    doc_start=doc_start,
                    doc_end=doc_end,
                    end_byte=node.end_byte,
                    start_line=outer.start_point[0] + 1,
                    end_line=node.end_point[0] + 1,
                    body_line=(body.start_point[0] + 1) if body is not None else node.end_point[0] + 2,
                    column=node.start_point[1],
                    bases=bases,
                    decorators=decorators,
                )
            )
            self._bind(parent, name)
            self.scope_data[index] = _ScopeBuilder()
            if body is not None:
                self.scopes.add(body.start_byte, max(body.end_byte, node.end_byte), index, parent)
            else:
                self.scopes.add(node.end_byte, node.end_byte, index, parent)
            if kind != "class":
                params = node.child_by_field_name("parameters")
                if params is not None:
                    names = _param_names(params)
                    for p in names:
                        self.skip.add(p.start_byte)
                        self.scope_data[index].bound.add(_text(p))
                    if kind == "method" and names:
                        self.scope_data[index].first_param = _text(names[0])

    # --- imports -----------------------------------------------------------------------------------
    def _imports(self) -> None:
        for node in self.caps.get("import", ()):
            scope = self.scopes.at(node.start_byte)
            line = node.start_point[0] + 1
            for child in node.named_children:
                self._skip_all(child)
                if child.type == "dotted_name":
                    module = _text(child)
                    top = module.split(".", 1)[0]
                    self._add_import(ImportBinding(top, module, 0, None, scope, line, binds_top=True))
                elif child.type == "aliased_import":
                    name = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if name is not None and alias is not None:
                        self._add_import(ImportBinding(_text(alias), _text(name), 0, None, scope, line))
        for node in self.caps.get("import_from", ()):
            scope = self.scopes.at(node.start_byte)
            line = node.start_point[0] + 1
            module_node = node.child_by_field_name("module_name")
            module, level = "", 0
            if module_node is not None:
                self._skip_all(module_node)
                if module_node.type == "relative_import":
                    for sub in module_node.named_children:
                        if sub.type == "import_prefix":
                            level = _text(sub).count(".")
                        elif sub.type == "dotted_name":
                            module = _text(sub)
                else:
                    module = _text(module_node)
            for child in node.named_children:
                if module_node is not None and child.start_byte == module_node.start_byte:
                    continue
                self._skip_all(child)
                if child.type == "wildcard_import":
                    self._add_import(ImportBinding("*", module, level, "*", scope, line, star=True))
                elif child.type == "dotted_name":
                    name = _text(child)
                    self._add_import(ImportBinding(name.split(".")[-1], module, level, name, scope, line))
                elif child.type == "aliased_import":
                    name_node = child.child_by_field_name("name")
                    alias = child.child_by_field_name("alias")
                    if name_node is not None and alias is not None:
                        self._add_import(
                            ImportBinding(_text(alias), module, level, _text(name_node), scope, line)
                        )
        for node in self.caps.get("future", ()):
            self._skip_all(node)

    def _add_import(self, binding: ImportBinding) -> None:
        self.imports.append(binding)
        if not binding.star and binding.scope != MODULE_SCOPE:
            self.scope_data[binding.scope].bound.add(binding.local)

    def _skip_all(self, node: Any) -> None:
        stack = [node]
        while stack:
            n = stack.pop()
            if n.type == "identifier":
                self.skip.add(n.start_byte)
            else:
                stack.extend(n.named_children)

    # --- other bindings ----------------------------------------------------------------------------
    def _bindings(self) -> None:
        for ident in self.caps.get("main_guard", ()):
            if ident.text == b"__name__":
                cond = ident.parent
                stmt = cond.parent if cond is not None else None
                if stmt is not None and stmt.type == "if_statement":
                    self.main_blocks.append((stmt.start_byte, stmt.end_byte))
        for node in self.caps.get("assign_left", ()):
            names: list[Any] = []
            _target_names(node, names)
            if not names:
                continue
            scope = self.scopes.at(node.start_byte)
            stmt = node.parent
            while stmt is not None and stmt.type == "assignment":
                stmt = stmt.parent
            statement_level = stmt is not None and stmt.type == "expression_statement"
            for ident in names:
                self.skip.add(ident.start_byte)
                name = _text(ident)
                self._bind(scope, name)
                is_holder = scope == MODULE_SCOPE or self.defs[scope].kind == "class"
                if statement_level and is_holder and stmt is not None:
                    self._variable(name, scope, stmt)
                    if name == "__all__" and scope == MODULE_SCOPE:
                        self._read_all(node.parent)
        for key in ("aug_left",):
            for node in self.caps.get(key, ()):
                if node.type == "identifier":
                    self._bind(self.scopes.at(node.start_byte), _text(node))
                    if _text(node) == "__all__" and self.dunder_all is not None:
                        self._read_all(node.parent, extend=True)
        for key in ("for_left", "as_target"):
            for node in self.caps.get(key, ()):
                names = []
                _target_names(node, names)
                scope = self.scopes.at(node.start_byte)
                for ident in names:
                    self.skip.add(ident.start_byte)
                    self._bind(scope, _text(ident))
        for node in self.caps.get("walrus", ()):
            self.skip.add(node.start_byte)
            self._bind(self.scopes.at(node.start_byte), _text(node))
        for key, attr in (("global", "globals"), ("nonlocal", "nonlocals")):
            for node in self.caps.get(key, ()):
                self.skip.add(node.start_byte)
                scope = self.scopes.at(node.start_byte)
                if scope != MODULE_SCOPE:
                    getattr(self.scope_data[scope], attr).add(_text(node))
        for node in self.caps.get("params", ()):
            if node.type != "lambda_parameters":
                continue  # function parameters were bound with their definition
            scope = self.scopes.at(node.start_byte)
            for ident in _param_names(node):
                self.skip.add(ident.start_byte)
                # lambda parameters are approximated as locals of the enclosing scope
                self._bind(scope, _text(ident))

    def _in_main_block(self, byte: int) -> bool:
        return any(start <= byte < end for start, end in self.main_blocks)

    def _variable(self, name: str, scope: int, stmt: Any) -> None:
        if scope == MODULE_SCOPE and self.main_blocks and self._in_main_block(stmt.start_byte):
            return  # demo code under `if __name__ == "__main__":` defines nothing importable
        kind = "attribute" if scope != MODULE_SCOPE else ("constant" if name.isupper() else "variable")
        parent_def = self.defs[scope] if scope != MODULE_SCOPE else None
        self.defs.append(
            Definition(
                name=name,
                qualname=f"{parent_def.qualname}.{name}" if parent_def else name,
                kind=kind,  # type: ignore[arg-type]
                parent=scope,
                start_byte=stmt.start_byte,
                header_end=stmt.end_byte,
                doc_start=-1,
                doc_end=-1,
                end_byte=stmt.end_byte,
                start_line=stmt.start_point[0] + 1,
                end_line=stmt.end_point[0] + 1,
                body_line=stmt.start_point[0] + 1,
                column=stmt.start_point[1],
            )
        )

    def _read_all(self, assign: Any, extend: bool = False) -> None:
        value = assign.child_by_field_name("right") if assign is not None else None
        if value is None or value.type not in ("list", "tuple"):
            return
        names = [
            _text(part)
            for item in value.named_children
            if item.type == "string"
            for part in item.named_children
            if part.type == "string_content"
        ]
        self.dunder_all = ([*(self.dunder_all or [])] if extend else []) + names

    # --- references --------------------------------------------------------------------------------
    def _references(self) -> list[Reference]:
        skip = self.skip
        skip.update(n.start_byte for n in self.caps.get("skip", ()))
        # pure `a.b.c` attribute chains by start byte (longest wins) and call targets by span, so the
        # hot loop below needs no Python-side tree walking
        chain_end: dict[int, int] = {}
        for node in self.caps.get("chain", ()):
            start, end = node.start_byte, node.end_byte
            if chain_end.get(start, -1) < end:
                chain_end[start] = end
        callees = {(n.start_byte, n.end_byte) for n in self.caps.get("callee", ())}
        text = self.text
        scope_at = self.scopes.at
        starts, spans = self.scopes.starts, self.scopes.spans
        bisect_right = bisect.bisect_right
        new_ref = tuple.__new__  # skips NamedTuple's Python-level __new__: tens of thousands per file
        refs: list[Reference] = []
        supers = []
        for node in self.caps.get("id", ()):
            start = node.start_byte
            if start in skip:
                continue
            end = node.end_byte
            if end - start == 5 and node.text == b"super":
                supers.append(node)
            chain: tuple[str, ...] | None = None
            long_end = chain_end.get(start)
            if long_end is not None:
                parts = tuple(p.strip() for p in text(start, long_end).split("."))
                if all(p.isidentifier() for p in parts):
                    chain, end = parts, long_end
                else:
                    chain, end = self._walk_chain(node)
            else:
                chain = (text(start, end),)
            # innermost scope: the last body starting before `start` when it still contains it
            pos = bisect_right(starts, start) - 1
            if pos < 0:
                scope = MODULE_SCOPE
            else:
                span = spans[pos]
                scope = span[2] if start < span[1] else scope_at(start)
            line = node.start_point[0] + 1
            refs.append(new_ref(Reference, (chain, scope, line, start, (start, end) in callees)))
        refs.extend(self._super_refs(supers))
        refs.extend(self._annotation_refs())
        refs.sort(key=lambda r: r.byte)
        return refs

    def _walk_chain(self, node: Any) -> tuple[tuple[str, ...], int]:
        """Slow path for chains interrupted by calls or subscripts (`a().b`): climb parents."""
        chain = [_text(node)]
        cur, parent = node, node.parent
        while parent is not None and parent.type == "attribute" and parent.start_byte == cur.start_byte:
            attr = parent.child_by_field_name("attribute")
            if attr is None:
                break
            chain.append(_text(attr))
            cur, parent = parent, parent.parent
        return tuple(chain), cur.end_byte

    def _annotation_refs(self) -> list[Reference]:
        """Names inside string annotations (`x: "Console"`, `Optional["mod.Type"]`, nested subscripts up to
        three deep, `"A" | None`) are references too: an import under `if TYPE_CHECKING:` used only in
        quoted annotations is used, not a name the blanked body must have needed."""
        out = []
        for node in self.caps.get("annotation_text", ()):
            content = _text(node)
            base = node.start_byte
            scope = self.scopes.at(base)
            line = node.start_point[0] + 1
            for match in _DOTTED.finditer(content):
                if match.group() in _NOT_NAMES:
                    continue
                byte = base + len(content[: match.start()].encode("utf-8"))
                out.append(Reference(tuple(match.group().split(".")), scope, line, byte, False))
        return out

    def _super_refs(self, supers: list[Any]) -> list[Reference]:
        """`super().name` loads, recorded with the pseudo-root `super()` so the graph can walk the bases."""
        out = []
        for node in supers:
            call = node.parent
            if call is None or call.type != "call":
                continue
            attr_parent = call.parent
            if attr_parent is None or attr_parent.type != "attribute":
                continue
            attr = attr_parent.child_by_field_name("attribute")
            if attr is None:
                continue
            outer = attr_parent.parent
            is_call = outer is not None and outer.type == "call"
            out.append(
                Reference(
                    ("super()", _text(attr)),
                    self.scopes.at(node.start_byte),
                    attr.start_point[0] + 1,
                    attr.start_byte,
                    is_call,
                )
            )
        return out


def _header_end(node: Any, body: Any) -> int:
    """End of the `:` closing a def/class header (comments before the body are not header)."""
    end = node.end_byte if body is None else body.start_byte
    for child in node.children:
        if body is not None and child.start_byte >= body.start_byte:
            break
        if child.type == ":":
            end = child.end_byte
    return end


def _base_text(node: Any) -> str:
    if node.type in ("identifier", "attribute"):
        return _text(node)
    if node.type == "subscript":  # Generic[T], Mapping[str, int]
        value = node.child_by_field_name("value")
        return _text(value) if value is not None and value.type in ("identifier", "attribute") else ""
    return ""


def _decorator_text(node: Any) -> str:
    """`@functools.lru_cache(maxsize=None)` -> "functools.lru_cache"; `@x.setter` -> "x.setter"."""
    expr = node.named_children[0] if node.named_child_count else None
    if expr is not None and expr.type == "call":
        expr = expr.child_by_field_name("function")
    return _text(expr) if expr is not None and expr.type in ("identifier", "attribute") else ""
