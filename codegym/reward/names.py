"""What a program's names and expressions refer to, through its own bindings (imports, aliases and
assignments, at module level and in functions), and the strings it spells out: `run = exec` and
`getattr(builtins, "exec")` are the builtin `exec`, `from re import compile` is `re.compile`, and a
parameter or a function of the program is the program's own (see hidden_code.py).
"""

from __future__ import annotations

import ast
import builtins
import re
from collections import deque
from collections.abc import Iterable

_BUILTIN_NAMES = frozenset(dir(builtins))
IMPORTERS = frozenset(
    {"builtins.__import__", "importlib.import_module", "importlib.__import__", "importlib.reload"}
)
_NAMESPACES = frozenset({"builtins", "<globals>", "sys.modules"})  # subscript or `.get` give members
_PATH_JOINS = frozenset(
    {"os.path.join", "posixpath.join", "pathlib.Path", "pathlib.PurePath", "pathlib.PosixPath"}
)
_DEPTH = 24

Binding = tuple  # ("import", qualified name) | ("value", expression, scope) | ("opaque",)


class _Scope:
    def __init__(self, parent: _Scope | None, is_class: bool = False) -> None:
        self.parent = parent
        self.is_class = is_class
        self.bindings: dict[str, list[Binding]] = {}
        self.globals: set[str] = set()

    def root(self) -> _Scope:
        return self if self.parent is None else self.parent.root()

    def lookup(self, name: str) -> _Scope | None:
        scope: _Scope | None = self
        first = True
        while scope is not None:
            if name in scope.bindings and (first or not scope.is_class):
                return scope
            scope, first = scope.parent, False
        return None


class Binder(ast.NodeVisitor):
    """Pass one: every binding of every scope, and the scope each node is evaluated in."""

    def __init__(self) -> None:
        self.scope = _Scope(None)
        self.scopes = [self.scope]
        self.scope_of: dict[ast.AST, _Scope] = {}

    def visit(self, node: ast.AST) -> None:
        self.scope_of[node] = self.scope
        super().visit(node)

    def bind(self, name: str, binding: Binding) -> None:
        scope = self.scope.root() if name in self.scope.globals else self.scope
        scope.bindings.setdefault(name, []).append(binding)

    def bind_target(self, target: ast.AST, value: ast.AST | None) -> None:
        if isinstance(target, ast.Name):
            self.bind(target.id, ("value", value, self.scope) if value is not None else ("opaque",))
        elif isinstance(target, (ast.Tuple, ast.List)):
            values: list[ast.AST | None] = [None] * len(target.elts)
            if (
                isinstance(value, (ast.Tuple, ast.List))
                and len(value.elts) == len(target.elts)
                and not any(isinstance(e, ast.Starred) for e in (*value.elts, *target.elts))
            ):
                values = list(value.elts)  # `run, n = exec, 1` binds `run` to `exec`
            for element, element_value in zip(target.elts, values, strict=True):
                self.bind_target(element, element_value)
        elif isinstance(target, ast.Starred):
            self.bind_target(target.value, None)

    def _opaque_targets(self, target: ast.AST) -> None:
        for node in ast.walk(target):
            if isinstance(node, ast.Name):
                self.bind(node.id, ("opaque",))

    def _new_scope(self, parent: _Scope, is_class: bool = False) -> _Scope:
        self.scopes.append(_Scope(parent, is_class))
        return self.scopes[-1]

    def _in_scope(self, scope: _Scope, nodes: Iterable[ast.AST]) -> None:
        outer, self.scope = self.scope, scope
        for node in nodes:
            self.visit(node)
        self.scope = outer

    def _function_parent(self) -> _Scope:
        scope = self.scope
        while scope.is_class and scope.parent is not None:
            scope = scope.parent
        return scope

    def visit_FunctionDef(self, node: ast.FunctionDef | ast.AsyncFunctionDef | ast.Lambda) -> None:
        if not isinstance(node, ast.Lambda):
            self.bind(node.name, ("opaque",))
            for item in (*node.decorator_list, node.returns):
                if item is not None:
                    self.visit(item)
        for default in (*node.args.defaults, *(d for d in node.args.kw_defaults if d is not None)):
            self.visit(default)
        inner = self._new_scope(self._function_parent())
        arguments = node.args
        for argument in (*arguments.posonlyargs, *arguments.args, *arguments.kwonlyargs):
            inner.bindings.setdefault(argument.arg, []).append(("opaque",))
        for argument in (arguments.vararg, arguments.kwarg):
            if argument is not None:
                inner.bindings.setdefault(argument.arg, []).append(("opaque",))
        self._in_scope(inner, node.body if isinstance(node.body, list) else [node.body])

    visit_AsyncFunctionDef = visit_FunctionDef
    visit_Lambda = visit_FunctionDef

    def visit_ClassDef(self, node: ast.ClassDef) -> None:
        self.bind(node.name, ("opaque",))
        for item in (*node.decorator_list, *node.bases, *node.keywords):
            self.visit(item)
        self._in_scope(self._new_scope(self.scope, is_class=True), node.body)

    def _comprehension(self, node: ast.ListComp | ast.SetComp | ast.GeneratorExp | ast.DictComp) -> None:
        inner = self._new_scope(self._function_parent())
        outer, self.scope = self.scope, inner
        for generator in node.generators:
            self._opaque_targets(generator.target)
        self.generic_visit(node)
        self.scope = outer

    visit_ListComp = visit_SetComp = visit_GeneratorExp = visit_DictComp = _comprehension

    def visit_Global(self, node: ast.Global | ast.Nonlocal) -> None:
        if isinstance(node, ast.Global):
            self.scope.globals.update(node.names)

    visit_Nonlocal = visit_Global

    def visit_Assign(self, node: ast.Assign) -> None:
        self.generic_visit(node)
        for target in node.targets:
            self.bind_target(target, node.value)

    def visit_AnnAssign(self, node: ast.AnnAssign) -> None:
        self.generic_visit(node)
        if node.value is not None:
            self.bind_target(node.target, node.value)

    def visit_NamedExpr(self, node: ast.NamedExpr) -> None:
        self.generic_visit(node)
        self.bind(node.target.id, ("value", node.value, self.scope))

    def visit_AugAssign(self, node: ast.AugAssign) -> None:
        self.generic_visit(node)
        self._opaque_targets(node.target)

    def visit_For(self, node: ast.For | ast.AsyncFor) -> None:
        self.generic_visit(node)
        self._opaque_targets(node.target)

    visit_AsyncFor = visit_For

    def visit_withitem(self, node: ast.withitem) -> None:
        self.generic_visit(node)
        if node.optional_vars is not None:
            self._opaque_targets(node.optional_vars)

    def visit_ExceptHandler(self, node: ast.ExceptHandler) -> None:
        if node.name:
            self.bind(node.name, ("opaque",))
        self.generic_visit(node)

    def visit_Import(self, node: ast.Import) -> None:
        for alias in node.names:
            if alias.asname:
                self.bind(alias.asname, ("import", alias.name))
            else:
                top = alias.name.partition(".")[0]
                self.bind(top, ("import", top))

    def visit_ImportFrom(self, node: ast.ImportFrom) -> None:
        module = "." * node.level + (node.module or "")
        for alias in node.names:
            # a star import binds nothing here: what it binds is not in the text, and importing the
            # module to find out would run code in this (the reward's) process (red team 17, T2);
            # `from re import *` then `compile(pattern)` is told apart by its call (hidden_code)
            if alias.name != "*":
                self.bind(alias.asname or alias.name, ("import", f"{module}.{alias.name}"))

    def visit_MatchAs(self, node: ast.AST) -> None:
        self.generic_visit(node)
        name = getattr(node, "name", None)
        if name:
            self.bind(name, ("opaque",))

    visit_MatchStar = visit_MatchAs


class Resolver:
    """Pass two: what an expression may refer to (qualified names), and the strings it folds to."""

    def __init__(self, tree: ast.AST) -> None:
        binder = Binder()
        binder.visit(tree)
        self.scope_of = binder.scope_of
        self._root = binder.scope
        # one walk (ast.walk's order) for both: every node, and each node's parent
        self.nodes: list[ast.AST] = []
        self.parent: dict[ast.AST, ast.AST] = {}
        todo = deque([tree])
        while todo:
            node = todo.popleft()
            self.nodes.append(node)
            for child in ast.iter_child_nodes(node):
                self.parent[child] = node
                todo.append(child)
        self._refers: dict[ast.AST, frozenset[str]] = {}
        self._folds: dict[ast.AST, str | bytes | None] = {}
        self._written: dict[ast.AST, bool] = {}
        keys = [(scope, name) for scope in binder.scopes for name in scope.bindings]
        self._names = {(name, id(scope)): frozenset[str]() for scope, name in keys}
        self._literal_names = {(name, id(scope)): True for scope, name in keys}
        self._settle(keys)

    def _settle(self, keys: list[tuple[_Scope, str]]) -> None:
        """What each name may refer to (the least fixpoint over its bindings: aliases of aliases, in
        any order, cycles included) and whether it only ever holds strings the program wrote (the
        greatest: a name bound to a literal and to itself holds literals)."""
        for _ in range(4 * len(keys) + 2):
            self._refers.clear()
            self._folds.clear()
            self._written.clear()
            changed = False
            for scope, name in keys:
                key, bindings = (name, id(scope)), scope.bindings[name]
                refers = frozenset(b[1] for b in bindings if b[0] == "import").union(
                    *(self.refers(b[1]) for b in bindings if b[0] == "value")
                )
                literal = all(b[0] == "value" and self.written(b[1]) for b in bindings)
                if refers != self._names[key] or literal != self._literal_names[key]:
                    self._names[key], self._literal_names[key], changed = refers, literal, True
            if not changed:
                break
        self._refers.clear()
        self._folds.clear()
        self._written.clear()

    def scope(self, node: ast.AST) -> _Scope:
        while node not in self.scope_of and node in self.parent:  # parts pass one did not enter
            node = self.parent[node]
        return self.scope_of.get(node) or self._root

    def name(self, name: str, scope: _Scope) -> frozenset[str]:
        where = scope.lookup(name)
        if where is None:
            if name == "__builtins__":
                return frozenset({"builtins"})
            return frozenset({f"builtins.{name}"}) if name in _BUILTIN_NAMES else frozenset()
        return self._names[(name, id(where))]

    def refers(self, node: ast.AST, depth: int = 0) -> frozenset[str]:
        """Qualified names `node` may evaluate to (`builtins.exec`, `re.compile`, `builtins`)."""
        if depth > _DEPTH:
            return frozenset()
        if node not in self._refers:
            self._refers[node] = frozenset()
            self._refers[node] = self._refers_uncached(node, depth)
        return self._refers[node]

    def _refers_uncached(self, node: ast.AST, depth: int) -> frozenset[str]:
        if isinstance(node, ast.Name):
            return self.name(node.id, self.scope(node))
        if isinstance(node, ast.Attribute):
            return _members(self.refers(node.value, depth + 1), node.attr, self, node)
        if isinstance(node, ast.Subscript):
            bases = self.refers(node.value, depth + 1) & _NAMESPACES
            return _members(bases, self.fold(node.slice), self, node)
        if isinstance(node, ast.Call):
            return self._call(node, depth)
        if isinstance(node, ast.IfExp):
            return self.refers(node.body, depth + 1) | self.refers(node.orelse, depth + 1)
        if isinstance(node, ast.BoolOp):
            return frozenset().union(*(self.refers(v, depth + 1) for v in node.values))
        if isinstance(node, ast.NamedExpr):
            return self.refers(node.value, depth + 1)
        return frozenset()

    def _call(self, node: ast.Call, depth: int) -> frozenset[str]:
        function = self.refers(node.func, depth + 1)
        first = node.args[0] if node.args else None
        if function & IMPORTERS and first is not None:
            module = self.fold(first)
            return frozenset({module if isinstance(module, str) else "<dynamic>"})
        if "builtins.getattr" in function and len(node.args) >= 2:
            return _members(self.refers(node.args[0], depth + 1), self.fold(node.args[1]), self, node)
        if function & {"builtins.vars", "functools.partial"} and first is not None:
            return self.refers(first, depth + 1)
        if function & {"builtins.globals", "builtins.locals"}:
            return frozenset({"<globals>"})
        if "operator.attrgetter" in function and first is not None and self.fold(first) == "exec":
            return frozenset({"builtins.exec"})
        if isinstance(node.func, ast.Attribute) and node.func.attr == "get" and first is not None:
            bases = self.refers(node.func.value, depth + 1) & _NAMESPACES
            return _members(bases, self.fold(first), self, node)
        return frozenset()

    def fold(self, node: ast.AST, depth: int = 0) -> str | bytes | None:
        """The one string (or bytes) `node` always evaluates to, when the program spells it out."""
        if depth > _DEPTH:
            return None
        if node not in self._folds:
            self._folds[node] = None
            self._folds[node] = self._fold_uncached(node, depth)
        return self._folds[node]

    def _fold_uncached(self, node: ast.AST, depth: int) -> str | bytes | None:
        if isinstance(node, ast.Constant):
            return node.value if isinstance(node.value, (str, bytes)) else None
        if isinstance(node, ast.Name):
            where = self.scope(node).lookup(node.id)
            values = {
                self.fold(b[1], depth + 1) if b[0] == "value" else None
                for b in (where.bindings[node.id] if where else [])
            }
            return values.pop() if len(values) == 1 else None
        if isinstance(node, ast.BinOp) and isinstance(node.op, (ast.Add, ast.Div)):
            left, right = self.fold(node.left, depth + 1), self.fold(node.right, depth + 1)
            if isinstance(left, str) and isinstance(right, str):
                return left + right if isinstance(node.op, ast.Add) else f"{left}/{right}"
            if isinstance(left, bytes) and isinstance(right, bytes) and isinstance(node.op, ast.Add):
                return left + right
            return None
        if isinstance(node, ast.JoinedStr):
            parts = [
                self.fold(v.value if isinstance(v, ast.FormattedValue) else v, depth + 1) for v in node.values
            ]
            texts = [p for p in parts if isinstance(p, str)]
            return "".join(texts) if len(texts) == len(parts) else None
        if isinstance(node, ast.Call):
            return self._fold_call(node, depth)
        return None

    def _fold_call(self, node: ast.Call, depth: int) -> str | None:
        function, first = node.func, node.args[0] if len(node.args) == 1 else None
        if node.keywords:
            return None
        if (
            isinstance(function, ast.Attribute)
            and function.attr == "join"
            and isinstance(function.value, ast.Constant)
            and isinstance(function.value.value, str)
            and isinstance(first, (ast.List, ast.Tuple))
        ):
            parts = [self.fold(e, depth + 1) for e in first.elts]
            texts = [p for p in parts if isinstance(p, str)]
            return function.value.value.join(texts) if len(texts) == len(parts) else None
        folded = [self.fold(a, depth + 1) for a in node.args]
        texts = [a for a in folded if isinstance(a, str)]
        if not texts or len(texts) != len(folded):
            return None
        refers = self.refers(function, depth + 1)
        if refers & _PATH_JOINS:
            return "/".join(texts)
        if "builtins.str" in refers and len(texts) == 1:
            return texts[0]
        if isinstance(function, ast.Attribute) and function.attr == "with_suffix" and len(texts) == 1:
            path = self.fold(function.value, depth + 1)
            return re.sub(r"\.[^./]*$", "", path) + texts[0] if isinstance(path, str) else None
        return None

    def written(self, node: ast.AST, depth: int = 0) -> bool:
        """Whether `node` is a string the program wrote: a literal, its docstring, a name only ever
        bound to such strings, or a concatenation or container of them."""
        if depth > _DEPTH:
            return False
        if node not in self._written:
            self._written[node] = False
            self._written[node] = self._written_uncached(node, depth)
        return self._written[node]

    def _written_uncached(self, node: ast.AST, depth: int) -> bool:
        if isinstance(node, ast.Constant):
            return isinstance(node.value, (str, bytes))
        if isinstance(node, ast.Name):
            if node.id == "__doc__":
                return True
            where = self.scope(node).lookup(node.id)
            return where is not None and self._literal_names[(node.id, id(where))]
        if isinstance(node, ast.BinOp) and isinstance(node.op, ast.Add):
            return self.written(node.left, depth + 1) and self.written(node.right, depth + 1)
        if isinstance(node, (ast.List, ast.Tuple, ast.Set)):
            return any(self.written(e, depth + 1) for e in node.elts)
        return self.fold(node, depth + 1) is not None


def _members(bases: frozenset[str], member: object, resolver: Resolver, node: ast.AST) -> frozenset[str]:
    """`base.member` for each base, with the aliases of the builtins' namespace resolved."""
    found: set[str] = set()
    for base in bases:
        if not isinstance(member, str):  # a computed name: only a lookup in the builtins is evidence
            if base == "builtins":
                found.add("builtins.<dynamic>")
        elif member == "__builtins__":
            found.add("builtins")
        elif member == "__dict__":
            found.add(base)
        elif member == "__globals__":
            found.add("<globals>")
        elif base == "sys.modules":
            found.add(member)
        elif base == "<globals>":  # a global of the program, looked up by name
            found |= resolver.name(member, resolver.scope(node).root())
        else:
            found.add(f"{base}.{member}")
    return frozenset(found)
