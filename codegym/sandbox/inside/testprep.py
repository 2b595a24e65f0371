"""Test preparation: the runner choice (fast or real pytest) and the compiled test modules.

Runs on the host (precompile.py, once per distinct test set) and in the worker; stdlib only. The
one rewrite: `assert a == b[, msg]` becomes a call of the harness's `__codegym_assert_eq__`, so a
failure says what the two sides were (values only, never the test's source text).
"""

import ast
import base64
import importlib.util
import marshal
import os

EQ_HELPER_NAME = "__codegym_assert_eq__"
STAR_HELPER_NAME = "__codegym_star_import__"
_SETUP_HOOKS = ("setup_module", "teardown_module", "setup_function", "teardown_function")
_STATEMENT_LISTS = ("body", "orelse", "finalbody", "handlers", "cases")


def _rewrite_assert(node):
    test = node.test
    if not (isinstance(test, ast.Compare) and len(test.ops) == 1 and isinstance(test.ops[0], ast.Eq)):
        return node
    # every new node takes the assert's position (what ast.copy_location would copy, ~4x slower)
    at = {
        "lineno": node.lineno,
        "col_offset": node.col_offset,
        "end_lineno": node.end_lineno,
        "end_col_offset": node.end_col_offset,
    }
    message = node.msg if node.msg is not None else ast.Constant(value=None, **at)
    arguments = ast.arguments(
        posonlyargs=[], args=[], vararg=None, kwonlyargs=[], kw_defaults=[], kwarg=None, defaults=[]
    )
    thunk = ast.Lambda(args=arguments, body=message, **at)
    helper = ast.Name(id=EQ_HELPER_NAME, ctx=ast.Load(), **at)
    call = ast.Call(func=helper, args=[test.left, test.comparators[0], thunk], keywords=[], **at)
    return ast.Expr(value=call, **at)


def _rewrite_star_import(node):
    """`from m import *` -> `__codegym_star_import__("m", level, globals())`: the harness binds the
    module's names without letting the program's module shadow a builtin or a name the test bound."""
    arguments = [
        ast.Constant(value=node.module or ""),
        ast.Constant(value=node.level),
        ast.Call(func=ast.Name(id="globals", ctx=ast.Load()), args=[], keywords=[]),
    ]
    call = ast.Call(func=ast.Name(id=STAR_HELPER_NAME, ctx=ast.Load()), args=arguments, keywords=[])
    return ast.fix_missing_locations(ast.copy_location(ast.Expr(value=call), node))


def rewrite_equality_asserts(tree):
    """Rewrites every equality assert (and star import) in place (statement lists only)."""
    stack = [tree]
    while stack:
        node = stack.pop()
        for field in _STATEMENT_LISTS:
            statements = getattr(node, field, None)
            if not isinstance(statements, list):
                continue
            for index, statement in enumerate(statements):
                if isinstance(statement, ast.Assert):
                    statements[index] = _rewrite_assert(statement)
                elif isinstance(statement, ast.ImportFrom) and [a.name for a in statement.names] == ["*"]:
                    statements[index] = _rewrite_star_import(statement)
                elif isinstance(statement, ast.AST):
                    stack.append(statement)
    return tree


def _test_needs_pytest(node):
    if node.name in _SETUP_HOOKS:
        return True
    if not node.name.startswith("test"):
        return False
    if node.decorator_list or isinstance(node, ast.AsyncFunctionDef):
        return True
    params = [a.arg for a in node.args.args if a.arg not in ("self", "cls")]
    return bool(params or node.args.vararg or node.args.kwarg)


def needs_pytest(test_sources, trees=None):
    """True when the tests use what only real pytest provides (fixtures, parametrize, marks, conftest)."""
    for filename, source in test_sources.items():
        if os.path.basename(filename) == "conftest.py":
            return True
        tree = (trees or {}).get(filename)
        if tree is None:
            try:
                tree = ast.parse(source)
            except SyntaxError:
                return False  # the fast path reports the syntax error
        for node in tree.body:
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)) and _test_needs_pytest(node):
                return True
            if isinstance(node, ast.ClassDef) and node.name.startswith("Test"):
                if node.decorator_list:
                    return True
                for member in node.body:
                    is_function = isinstance(member, (ast.FunctionDef, ast.AsyncFunctionDef))
                    if is_function and _test_needs_pytest(member):
                        return True
    return False


class PreparedTests:
    """The runner choice and, for the fast runner, the rewritten and compiled test modules
    [(file name, path, module name, code)]."""

    __slots__ = ("compiled", "error", "runner")

    def __init__(self, runner, compiled, error):
        self.runner = runner
        self.compiled = compiled
        self.error = error


def prepare(tests, choice, tests_dir):
    choice = choice or "auto"
    trees = {}
    for filename, source in tests.items():
        try:
            trees[filename] = ast.parse(source, filename=os.path.join(tests_dir, filename))
        except SyntaxError as exc:
            if choice == "pytest":
                continue  # pytest reports it as a collection error
            return PreparedTests("fast", None, f"SyntaxError in {filename} line {exc.lineno}: {exc.msg}")
    if choice == "auto":
        choice = "pytest" if needs_pytest(tests, trees) else "fast"
    if choice != "fast":
        return PreparedTests(choice, None, None)
    compiled = []
    for filename, tree in trees.items():
        path = os.path.join(tests_dir, filename)
        code = compile(rewrite_equality_asserts(tree), path, "exec")
        compiled.append((filename, path, os.path.splitext(filename)[0].replace("/", "."), code))
    return PreparedTests("fast", compiled, None)


def rewritten_source(source):
    """The pytest path's files: the same rewrite, as source (pytest imports them from disk)."""
    return ast.unparse(rewrite_equality_asserts(ast.parse(source)))


def to_wire(prepared):
    """A prepared test set as JSON-safe data: the host compiles once per distinct test set and every
    worker (whose interpreter has the same bytecode magic) loads the code instead of compiling."""
    modules = None
    if prepared.compiled is not None:
        modules = [
            [f, path, name, base64.b64encode(marshal.dumps(code)).decode("ascii")]
            for f, path, name, code in prepared.compiled
        ]
    return {
        "magic": importlib.util.MAGIC_NUMBER.hex(),
        "runner": prepared.runner,
        "modules": modules,
        "error": prepared.error,
    }


def from_wire(wire, tests_dir):
    """The host's prepared tests, or None when they were made for another interpreter or path."""
    if not wire or wire.get("magic") != importlib.util.MAGIC_NUMBER.hex():
        return None
    modules = wire.get("modules")
    compiled = None
    if modules is not None:
        compiled = []
        for filename, path, name, blob in modules:
            if path != os.path.join(tests_dir, filename):
                return None
            compiled.append((filename, path, name, marshal.loads(base64.b64decode(blob))))
    return PreparedTests(wire.get("runner") or "fast", compiled, wire.get("error"))


class TestPreparer:
    """Compiles test modules once per distinct source (in the worker, before forking the harness)."""

    def __init__(self, max_entries=512):
        self.max_entries = max_entries
        self._cache = {}

    def prepare(self, tests, choice, tests_dir):
        key = (tests_dir, choice or "auto", tuple(sorted(tests.items())))
        prepared = self._cache.pop(key, None)
        if prepared is None:
            prepared = prepare(tests, choice, tests_dir)
        self._cache[key] = prepared  # re-inserted: dicts keep insertion order, so this is an LRU
        if len(self._cache) > self.max_entries:
            del self._cache[next(iter(self._cache))]
        return prepared
