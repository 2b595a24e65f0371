"""Whether the generated lines build code at runtime, which ruff, radon and the file's coverage cannot
see: the program's style, complexity and coverage cannot be measured then (scored 0, never dropped: a
dropped component would leave the measured ones, all at their best, to make the whole quality score).

Decided by what the program's names refer to (names.py), never by how they are spelt: any reference
to the builtin `exec` or `compile` (by name when not shadowed, through `builtins`/`__builtins__`,
aliases, `getattr`/`vars` with a constant or computed name), runpy, marshal, importlib's loaders, the
`code`/`codeop`/`pdb` runners, a code object built or replaced; an `eval` (or `timeit`, or
`pickle.loads`) of a string the program wrote; or a `.py` file the program writes and then imports or
runs (or Python source it wrote out, then loaded). `eval` of data the program computed
(`eval(expression)` of an arithmetic string it built, `map(eval, input().split())`) is not that.
"""

from __future__ import annotations

import ast
import re
import sys

from codegym.reward.names import IMPORTERS, Resolver

# a reference to any of these (called or not) runs code the program holds as data
_RUNS_CODE = (
    "builtins.exec",
    "builtins.compile",
    "builtins.<dynamic>",  # a builtin looked up by a computed name
    "runpy.",
    "marshal.load",
    "code.",
    "codeop.",
    "importlib.util.spec_from",
    "importlib.util.module_from_spec",
    "importlib.util.source_",
    "importlib.machinery.",
    "importlib.abc.",
    "importlib._bootstrap",
    "pdb.run",
    "bdb.",
    "profile.run",
    "cProfile.run",
)
_CONSTRUCTORS = frozenset({"types.FunctionType", "types.LambdaType", "types.CodeType"})  # when called
# these run a string or bytes: evidence only when it is one the program wrote
_STRING_RUNNERS = frozenset(
    {"builtins.eval", "timeit.timeit", "timeit.repeat", "timeit.Timer", "pickle.loads", "_pickle.loads"}
)
_PROCESSES = ("subprocess.", "os.system", "os.popen", "os.exec", "os.spawn", "os.posix_spawn")
_OPENERS = frozenset({"builtins.open", "io.open", "codecs.open"})
_WRITE_FLAGS = frozenset({"O_WRONLY", "O_RDWR", "O_CREAT", "O_APPEND"})
_CODE_SUFFIXES = (".py", ".pyw", ".pyc")


def hides_code(tree: ast.Module | None, first_line: int = 1) -> bool:
    """Whether the lines from `first_line` on build code at runtime (see the module's docstring)."""
    if tree is None:
        return False
    try:
        resolver = Resolver(tree)
        generated = [node for node in resolver.nodes if getattr(node, "lineno", 0) >= first_line]
        return any(_builds(node, resolver) for node in generated) or _writes_code_then_loads_it(
            generated, resolver
        )
    except RecursionError:  # nested too deep to follow: out of sight as well (radon gives up on it too)
        return True


def _builds(node: ast.AST, resolver: Resolver) -> bool:
    if isinstance(node, ast.Assign) and any(
        isinstance(t, ast.Attribute) and t.attr == "__code__" for t in node.targets
    ):
        return True  # a function given another code object
    function = node.func if isinstance(node, ast.Call) else None
    replaced = isinstance(function, ast.Attribute) and function.attr == "replace" and function.value
    if isinstance(replaced, ast.Attribute) and replaced.attr == "__code__":
        return True  # a code object rebuilt
    if not isinstance(node, (ast.Name, ast.Attribute, ast.Subscript, ast.Call)):
        return False
    if isinstance(getattr(node, "ctx", None), (ast.Store, ast.Del)):
        return False
    refers = resolver.refers(node)
    if not refers:
        return False
    parent = resolver.parent.get(node)
    called = isinstance(parent, ast.Call) and parent.func is node
    if called and "builtins.compile" in refers and not _can_be_builtin_compile(parent):
        refers = refers - {"builtins.compile"}  # `from re import *`: compile(pattern) is re.compile
    if any(name.startswith(_RUNS_CODE) for name in refers):
        return True
    if called and refers & _CONSTRUCTORS:
        return True
    return bool(refers & _STRING_RUNNERS) and _runs_a_written_string(node, parent, resolver)


def _can_be_builtin_compile(call: ast.Call) -> bool:
    """The builtin `compile` takes a source, a filename and a mode: a call with fewer (and no
    `filename`/`mode` keyword, no `*`/`**` unpacking) raises TypeError if it is the builtin, so it is
    another `compile` (a star import's `re.compile`, audit 16 S3)."""
    if any(isinstance(argument, ast.Starred) for argument in call.args):
        return True
    if any(k.arg is None or k.arg in ("filename", "mode") for k in call.keywords):
        return True
    return len(call.args) >= 3


def _runs_a_written_string(node: ast.AST, parent: ast.AST | None, resolver: Resolver) -> bool:
    """`eval` and the like: called (or passed to a call, as to `map`) with a string the program wrote.
    Bound to a name, the calls through that name are judged; stored anywhere else, it cannot be
    followed and counts."""
    if isinstance(parent, (ast.Assign, ast.AnnAssign, ast.NamedExpr)) and parent.value is node:
        return False
    if isinstance(parent, ast.keyword):
        parent = resolver.parent.get(parent)
    if not isinstance(parent, ast.Call):
        return True
    arguments = [a for a in (*parent.args, *(k.value for k in parent.keywords)) if a is not node]
    return any(resolver.written(argument) for argument in arguments)


def _writes_code_then_loads_it(generated: list[ast.AST], resolver: Resolver) -> bool:
    """A `.py` file written and then imported (or run), or Python source the program wrote written
    out and then loaded by a computed import or a process."""
    modules: set[str] = set()  # module names of the code files the program writes
    source_written = dynamic_import = runs_process = False
    imported: set[str] = set()
    for node in generated:
        if isinstance(node, ast.Import):
            imported.update(alias.name.partition(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            imported.add(node.module.partition(".")[0])
        if not isinstance(node, ast.Call):
            continue
        function = resolver.refers(node.func)
        if function & IMPORTERS and node.args:
            module = resolver.fold(node.args[0])
            if isinstance(module, str):
                imported.add(module.partition(".")[0])
            else:
                dynamic_import = True
        runs_process = runs_process or any(name.startswith(_PROCESSES) for name in function)
        path, content = _written_file(node, function, resolver)
        if path is not None and path.lower().endswith(_CODE_SUFFIXES):
            modules |= _module_names(path)
        source_written = source_written or any(_is_source(resolver.fold(c)) for c in content)
    if modules and (modules & imported or dynamic_import or runs_process):
        return True
    foreign = imported - set(sys.stdlib_module_names) - {"__future__"}
    return source_written and (dynamic_import or runs_process or bool(modules) or bool(foreign))


def _written_file(node: ast.Call, function: frozenset[str], resolver: Resolver) -> tuple[str | None, list]:
    """(the path a call writes when the program spells it out, what it writes)."""
    keywords = {k.arg: k.value for k in node.keywords if k.arg}
    arguments = [*node.args]
    if function & _OPENERS:
        mode_node = arguments[1] if len(arguments) > 1 else keywords.get("mode")
        mode = resolver.fold(mode_node) if mode_node is not None else "r"
        target = arguments[0] if arguments else keywords.get("file")
        writes = not isinstance(mode, str) or any(c in mode for c in "wax+")
        path = resolver.fold(target) if writes and target is not None else None
        return (path if isinstance(path, str) else None), []
    if "os.open" in function and arguments:
        flags = {n.attr for a in arguments[1:] for n in ast.walk(a) if isinstance(n, ast.Attribute)}
        path = resolver.fold(arguments[0]) if flags & _WRITE_FLAGS else None
        return (path if isinstance(path, str) else None), []
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("write_text", "write_bytes"):
        path = resolver.fold(node.func.value)
        return (path if isinstance(path, str) else None), arguments[:1]
    if isinstance(node.func, ast.Attribute) and node.func.attr in ("write", "writelines"):
        return None, arguments[:1]
    if "builtins.print" in function and "file" in keywords:
        return None, arguments
    return None, []


def _module_names(path: str) -> set[str]:
    """The names an import of the file at `path` could use: its stem and its folders (a package)."""
    parts = [p for p in re.split(r"[\\/]+", path) if p not in ("", ".", "..")]
    if not parts:
        return set()
    stem = re.sub(r"\.[^.]*$", "", parts[-1])
    return {p for p in (*parts[:-1], stem) if p != "__init__"}


def _is_source(value: object) -> bool:
    """Whether a string is Python that defines something (a function, a class, a lambda)."""
    if isinstance(value, bytes):
        value = value.decode("utf-8", "replace")
    if not isinstance(value, str):
        return False
    try:
        tree = ast.parse(value)
    except (SyntaxError, ValueError, RecursionError, MemoryError):
        return False
    return any(
        isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Lambda))
        for n in ast.walk(tree)
    )
