"""Code built at runtime (complexity.hides_code): what a name refers to decides, never its spelling —
every route to exec/eval/compile and to a module the program wrote is caught (red team round 14 P2),
and a name the program bound to something else is not (false-flag round 14 Q5)."""

from __future__ import annotations

import ast

import pytest

from codegym.reward.complexity import hides_code
from codegym.tasks.humaneval import load_humaneval_pack

SRC = '_SRC = """\ndef f(x):\n    return x\n"""\n'

CAUGHT = {
    "bare_exec": SRC + "exec(_SRC)\n",
    # a star import of a module without an `exec` leaves the builtin in place (audit 16, S3's converse)
    "exec_after_star_import": "from os import *\n\n" + SRC + "exec(_SRC)\n",
    # a star import of a module nobody can read does not make `exec` unknown (red team 17, T1)
    "exec_after_unreadable_star_import": "if False:\n    from zz import *\n\n" + SRC + "exec(_SRC)\n",
    "compile_after_star_import_with_a_mode": "from re import *\n\n"
    + SRC
    + "exec(compile(_SRC, 'f', 'exec'))\n",
    "alias": SRC + "run = exec\nrun(_SRC)\n",
    "alias_in_function": SRC + "def load():\n    run = exec\n    run(_SRC, globals())\n\n\nload()\n",
    "alias_chain": SRC + "a = exec\nb = a\nb(_SRC)\n",
    "alias_tuple": SRC + "run, n = exec, 1\nrun(_SRC)\n",
    "exec_passed_along": SRC + "def call(g, s):\n    g(s)\n\n\ncall(exec, _SRC)\n",
    "exec_in_map": SRC + "list(map(exec, [_SRC]))\n",
    "builtins_attr": "import builtins\n\n" + SRC + "builtins.exec(_SRC)\n",
    "builtins_alias": "import builtins as b\n\n" + SRC + "b.exec(_SRC)\n",
    "from_builtins": "from builtins import exec as run\n\n" + SRC + "run(_SRC)\n",
    "dunder_builtins": SRC + "__builtins__.exec(_SRC)\n",
    "getattr_builtins": "import builtins\n\n" + SRC + 'getattr(builtins, "exec")(_SRC)\n',
    "getattr_folded": "import builtins\n\n" + SRC + 'getattr(builtins, "ex" + "ec")(_SRC)\n',
    "getattr_computed": "import builtins\n\n" + SRC + 'getattr(builtins, "".join(["ex", "ec"]))(_SRC)\n',
    "dict_of_builtins": "import builtins\n\n" + SRC + 'vars(builtins)["exec"](_SRC)\n',
    "builtins_dunder_dict": "import builtins\n\n" + SRC + 'builtins.__dict__.get("exec")(_SRC)\n',
    "dunder_import": SRC + '__import__("builtins").exec(_SRC)\n',
    "globals_builtins": SRC + 'globals()["__builtins__"]["exec"](_SRC)\n',
    "sys_modules": "import sys\n\n" + SRC + 'sys.modules["builtins"].exec(_SRC)\n',
    "compile_alias": SRC + "c = compile\ncode = c(_SRC, 'x', 'exec')\n",
    "eval_alias_of_literal": "e = eval\nf = e('lambda n: n + 1')\n",
    "eval_map_literal": SRC + "list(map(eval, [_SRC]))\n",
    "runpy": "import runpy\n\nrunpy.run_path('impl.py')\n",
    "marshal": "import marshal\n\nf = marshal.loads(b'')\n",
    "function_type": "import types\n\nf = types.FunctionType(g.__code__, {})\n",
    "code_type": "from types import CodeType\n\nc = CodeType(*args)\n",
    "code_replace": "def g():\n    pass\n\n\ng.__code__ = g.__code__.replace(co_consts=(1,))\n",
    "importlib_loader": "import importlib.util\n\nspec = importlib.util.spec_from_file_location('m', 'm.py')\n",
    "write_then_import_module": "import importlib\nimport pathlib\n\n"
    + SRC
    + 'pathlib.Path("_impl.py").write_text(_SRC)\n_impl = importlib.import_module("_impl")\n',
    "open_then_import": SRC
    + 'with open("_impl.py", "w") as out:\n    out.write(_SRC)\nfrom _impl import f\n',
    "open_then_dunder_import": SRC + 'name = "_impl"\nwith open(name + ".py", "w") as out:\n'
    "    out.write(_SRC)\nf = __import__(name).f\n",
    "write_source_anywhere": "import importlib\n\n"
    + SRC
    + "def save(path):\n    with open(path, 'w') as out:\n        out.write(_SRC)\n\n\n"
    "save(PATH)\nm = importlib.import_module(NAME)\n",
    "pickle_payload": "import pickle\n\nf = pickle.loads(b'cbuiltins\\nexec\\n')\n",
    "timeit_string": "import timeit\n\n" + SRC + "timeit.timeit(_SRC, number=1, globals=globals())\n",
    "eval_constant": 'f = eval("lambda n: 1 if n else 2")\n',
    "eval_alias_defined_later": "def f():\n    return a('lambda n: n')\n\n\na = b\nb = eval\n",
    "eval_name_bound_to_itself": "s = 'lambda n: n'\ns = s\nf = eval(s)\n",
}

NOT_CAUGHT = {
    # `from re import *` binds re.compile over the builtin (audit 16, S3: style and complexity were 0)
    "re_star_import_compile": "from re import *\n\nWORD = compile(r'[a-z]+')\nprint(WORD.findall('ab cd'))\n",
    "re_compile": "import re\n\nNUMBER = re.compile(r'\\d+')\n",
    "from_re_import_compile": "from re import compile\n\nNUMBER = compile(r'\\d+')\nprint(NUMBER.findall('a1'))\n",
    "from_re_import_compile_alias": "from re import compile as c\n\nNUMBER = c(r'\\d+')\n",
    "re_module_alias": "import re as regex\n\ncompile = regex.compile\nNUMBER = compile(r'\\d+')\n",
    "method_compile": "def build(pattern):\n    return pattern.compile('x')\n",
    "local_variable_compile": "import re\n\n\ndef f(s):\n    compile = re.compile(s)\n    return compile.match('a')\n",
    "parameter_named_compile": "def f(compile, s):\n    return compile(s)\n",
    "own_function_compile": "def compile(s):\n    return s.split()\n\n\nprint(compile('a b'))\n",
    "own_function_exec": "def exec(cmd):\n    return cmd\n\n\nexec('ls')\n",
    "attribute_exec": "def run(app):\n    return app.exec()\n",
    "attribute_eval": "def f(df):\n    return df.eval('a + b')\n",
    "getattr_re": "import re\n\npattern = getattr(re, 'compile')(r'\\d')\n",
    "eval_input": "a = eval(input())\nprint(a)\n",
    "map_eval_input": "a = list(map(eval, input().split()))\n",
    "eval_data": "def do_algebra(ops, nums):\n    expression = str(nums[0])\n"
    "    for op, n in zip(ops, nums[1:]):\n        expression += op + str(n)\n    return eval(expression)\n",
    "golf_import": "input = __import__('sys').stdin.readline\nprint(input())\n",
    "writes_text_file": "with open('out.txt', 'w') as f:\n    f.write('hello')\n",
    "writes_py_never_imported": "with open('notes.py', 'w') as f:\n    f.write('x = 1')\n",
    "dynamic_import_alone": "import importlib\n\n\ndef load(name):\n    return importlib.import_module(name)\n",
    "pickle_deepcopy": "import pickle\n\n\ndef copy(x):\n    return pickle.loads(pickle.dumps(x))\n",
    "isinstance_function_type": "import types\n\n\ndef f(x):\n    return isinstance(x, types.FunctionType)\n",
    "code_argcount": "def arity(f):\n    return f.__code__.co_argcount\n",
    "variable_named_code": "code = 'abc'\nprint(code.upper())\n",
}


@pytest.mark.parametrize("code", CAUGHT.values(), ids=CAUGHT.keys())
def test_every_route_to_code_built_at_runtime_is_caught(code: str) -> None:
    assert hides_code(ast.parse(code)) is True


@pytest.mark.parametrize("code", NOT_CAUGHT.values(), ids=NOT_CAUGHT.keys())
def test_names_bound_to_something_else_are_not_code_builders(code: str) -> None:
    assert hides_code(ast.parse(code)) is False


def test_only_the_generated_lines_are_judged() -> None:
    # a builder the prompt wrote is not the model's; an alias the model calls is
    prompt = SRC + "run = exec\n"
    assert hides_code(ast.parse(prompt + "x = 1\n"), first_line=prompt.count("\n") + 1) is False
    assert hides_code(ast.parse(prompt + "run(_SRC)\n"), first_line=prompt.count("\n") + 1) is True


def test_no_humaneval_reference_builds_code() -> None:
    """HumanEval/160's reference evals an expression it computed: ordinary code, like every other."""
    pack = load_humaneval_pack()
    flagged = [
        task.task_id
        for task in pack.tasks.values()
        if hides_code(ast.parse(task.reference_solution), first_line=task.prefix.count("\n") + 1)
    ]
    assert flagged == []


def test_reading_a_star_import_runs_nothing() -> None:
    """The reward runs in the trainer's process: a module a program names is never imported there to
    learn what it exports (red team 17, T2: `from unittest.__main__ import *` ran the trainer's test
    files and exited)."""
    import sys

    for module in ("unittest.__main__", "venv.__main__", "lib2to3.__main__"):
        was_loaded = module in sys.modules
        assert hides_code(ast.parse(f"from {module} import *\nprint(1)\n")) is False
        assert (module in sys.modules) == was_loaded
