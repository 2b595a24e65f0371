"""Recall and latency of codegym.context against a sliding-window baseline on real PyPI packages.

    .venv/bin/python benchmarks/context_recall.py [--per-package 40] [--cold-holes 10] [--show 0]

For every hole (a function body blanked, signature and docstring kept; see context_data.py) both
methods get the same budget and the same 25% local-window share; recall is the fraction of the
body's cross-file definitions whose header made it into the text, averaged over holes ("macro") and
pooled ("micro"). Latency per query:
  cold         fresh engine, no caches: scan + parse the whole package + graph + rank + render
  cold-cpu     the same, in CPU seconds of this process (insensitive to other load on the machine)
  disk-warm    fresh engine (new process state), SQLite parse cache already filled
  incremental  engine that indexed the package; the hole's file changed (blanked), so one file is
               re-parsed and the graph rebuilt
  warm         the same repository state queried again: ranking + rendering only
Tokens are counted with the estimate (codegym.context.tokens) unless --tokenizer is given.
Ranking weights were tuned on the "dev" packages only; "held-out" rows are the honest figures.
benchmarks/context_misses.py lists a dev package's missed definitions with their rank (never a
held-out package's).
"""

from __future__ import annotations

import argparse
import ast
import os
import re
import statistics
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_baseline import SlidingWindowIndex
from context_data import CACHE, HoleCase, line_count, load

from codegym.context import ContextEngine, estimate_tokens, load_token_counter
from codegym.context.graph import RepoGraph, Sym
from codegym.context.parser import PythonParser
from codegym.context.render import constructor
from codegym.context.repo import RepoFiles, scan_repo
from codegym.context.tokens import TokenCounter

BUDGETS = (512, 1024, 2048)
# budget use is also reported in the tokens of a real code BPE when benchmarks/context_tokens.py has
# trained one (32k vocabulary, cached): the estimate is calibrated against it
_REAL_PATH = CACHE / "tok" / "bpe32k-gpt2.json"
REAL = None
if _REAL_PATH.is_file():
    from tokenizers import Tokenizer

    REAL = Tokenizer.from_file(str(_REAL_PATH))


def header_lines(repo: RepoFiles) -> dict[tuple[str, str], int]:
    """Line of each definition's name (after decorators), for the baseline's hit test."""
    parser = PythonParser()
    out = {}
    for path, data in repo.files.items():
        for d in parser.parse(data).definitions:
            line = d.start_line
            if d.kind in ("function", "method", "class"):
                # the header slice starts at the first decorator: walk to the `def` / `class` line
                text = data[d.start_byte : d.header_end].decode("utf-8", "replace").split("\n")
                starts = ("def ", "async def ", "class ")
                first = next((k for k, t in enumerate(text) if t.lstrip().startswith(starts)), 0)
                line = d.start_line + first
            out[(path, d.qualname)] = line
    return out


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q * (len(ordered) - 1)))]


_BLOCK = re.compile(r"^# file: (.+)$", re.M)


def block_report(text: str) -> tuple[dict[str, set[str]], dict[str, set[str]], int, int]:
    """Parse each `# file:` definitions block (the current-file window is left out).

    Returns (qualnames present per path, qualnames shown with a signature per path, blocks, invalid
    blocks). "With a signature": a function/method header (parameters), a class with a constructor
    (`__init__` / `__new__`) or dataclass-style fields in its body, an assignment.
    """
    present: dict[str, set[str]] = {}
    usable: dict[str, set[str]] = {}
    marks = list(_BLOCK.finditer(text))
    blocks = invalid = 0
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        path, body = mark.group(1), text[mark.end() : end]
        if path.endswith(")") and " (current file" in path:
            continue  # the local window is a verbatim prefix of the current file
        blocks += 1
        try:
            tree = ast.parse(body)
        except SyntaxError:
            invalid += 1
            continue
        seen, good = present.setdefault(path, set()), usable.setdefault(path, set())

        def walk(nodes: list[ast.stmt], prefix: str, seen: set[str] = seen, good: set[str] = good) -> None:
            for node in nodes:
                if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef):
                    seen.add(prefix + node.name)
                    good.add(prefix + node.name)
                elif isinstance(node, ast.ClassDef):
                    qual = prefix + node.name
                    seen.add(qual)
                    ctor = any(
                        isinstance(n, ast.FunctionDef) and n.name in ("__init__", "__new__")
                        for n in node.body
                    )
                    fields = any(isinstance(n, ast.AnnAssign) for n in node.body)
                    if ctor or fields:
                        good.add(qual)
                    walk(node.body, qual + ".")
                elif isinstance(node, ast.Assign | ast.AnnAssign):
                    targets = node.targets if isinstance(node, ast.Assign) else [node.target]
                    for t in targets:
                        for n in ast.walk(t):
                            if isinstance(n, ast.Name):
                                seen.add(prefix + n.id)
                                good.add(prefix + n.id)

        walk(tree.body, "")
    return present, usable, blocks, invalid


def needs_constructor(graph: RepoGraph, path: str, qual: str) -> bool:
    """Whether a class has a constructor (own or inherited within the repo) its rendering must show."""
    for i, d in enumerate(graph.parsed[path].definitions):
        if d.qualname == qual:
            return d.kind == "class" and constructor(graph, Sym(path, i)) is not None
    return False


def kind_of(graph: RepoGraph, path: str, qual: str) -> str:
    for d in graph.parsed[path].definitions:
        if d.qualname == qual:
            return d.kind
    return "?"


def run_package(
    label: str,
    root: Path,
    repo: RepoFiles,
    holes: list[HoleCase],
    count: TokenCounter | None,
    cold_holes: int,
    with_baseline: bool = True,
) -> dict:
    counter = count or estimate_tokens
    heads = header_lines(repo)
    baseline = SlidingWindowIndex(repo) if with_baseline else None
    engine = ContextEngine()
    pristine = engine.graph(repo)  # index the pristine package once: per-hole queries are then incremental
    res: dict = {
        "ours": {b: [] for b in BUDGETS},
        "usable": {b: [] for b in BUDGETS},
        "fill": {b: [] for b in BUDGETS},
        "real_fill": {b: [] for b in BUDGETS},
        "base": {b: [] for b in BUDGETS},
        "truth": [],
        "blocks": 0,
        "invalid": 0,
        "by_kind": {},  # kind -> [found at 1024, total]
    }
    lat: dict[str, list[float]] = {
        "incremental": [],
        "warm": [],
        "cold": [],
        "cold-cpu": [],
        "disk-warm": [],
        "baseline": [],
    }
    for case in holes:
        files = dict(repo.files)
        files[case.file] = case.blanked
        blanked = RepoFiles(files, repo.root_name)
        t0 = time.perf_counter()
        engine.query(blanked, case.file, case.line, BUDGETS[0], count)
        lat["incremental"].append(time.perf_counter() - t0)
        res["truth"].append(len(case.truth))
        for budget in BUDGETS:
            t0 = time.perf_counter()
            ctx = engine.query(blanked, case.file, case.line, budget, count)
            lat["warm"].append(time.perf_counter() - t0)
            assert ctx.token_count <= budget, (label, case.qualname, budget, ctx.token_count)
            got = {(s.path, s.name) for s in ctx.symbols}
            res["ours"][budget].append(len(got & case.truth))
            res["fill"][budget].append(ctx.token_count / budget)
            if REAL is not None:
                res["real_fill"][budget].append(
                    len(REAL.encode(ctx.text, add_special_tokens=False).ids) / budget
                )
            present, usable, blocks, invalid = block_report(ctx.text)
            res["blocks"] += blocks
            res["invalid"] += invalid
            n_usable = 0
            for path, qual in case.truth:
                if qual in usable.get(path, ()) or (
                    qual in present.get(path, ()) and not needs_constructor(pristine, path, qual)
                ):
                    n_usable += 1
            res["usable"][budget].append(n_usable)
            if budget == 1024:
                for path, qual in case.truth:
                    row = res["by_kind"].setdefault(kind_of(pristine, path, qual), [0, 0])
                    row[0] += (path, qual) in got
                    row[1] += 1
            if baseline is None:
                res["base"][budget].append(0)
                continue
            t0 = time.perf_counter()
            chunks = baseline.retrieve(case.file, case.blanked, case.line, budget, counter)
            lat["baseline"].append(time.perf_counter() - t0)
            hit = {
                key
                for key in case.truth
                if any(c.path == key[0] and c.start <= heads.get(key, -1) <= c.end for c in chunks)
            }
            res["base"][budget].append(len(hit))
    with tempfile.TemporaryDirectory() as tmp:
        for case in holes[:cold_holes]:
            files = dict(repo.files)
            files[case.file] = case.blanked
            blanked = RepoFiles(files, repo.root_name)
            fresh = ContextEngine()
            t0, c0 = time.perf_counter(), time.process_time()
            scan_repo(root)  # what the CLI reads first; the blanked copy itself is already in memory
            fresh.query(blanked, case.file, case.line, 1024, count)
            lat["cold"].append(time.perf_counter() - t0)
            lat["cold-cpu"].append(time.process_time() - c0)
            ContextEngine(Path(tmp)).query(blanked, case.file, case.line, 1024, count)  # fill the disk cache
            disk = ContextEngine(Path(tmp))
            t0 = time.perf_counter()
            disk.query(blanked, case.file, case.line, 1024, count)
            lat["disk-warm"].append(time.perf_counter() - t0)
            disk.close()
    res["lat"] = lat
    return res


def recall(found: list[int], truth: list[int]) -> tuple[float, float]:
    macro = statistics.fmean(f / t for f, t in zip(found, truth, strict=True)) if truth else float("nan")
    micro = sum(found) / sum(truth) if truth else float("nan")
    return macro, micro


def fmt_recall(found: list[int], truth: list[int]) -> str:
    macro, micro = recall(found, truth)
    return f"{macro:.3f} / {micro:.3f}"


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--per-package", type=int, default=40, help="holes sampled per package")
    ap.add_argument("--cold-holes", type=int, default=10, help="holes per package timed cold / disk-warm")
    ap.add_argument("--tokenizer", default=None, help="tokenizer.json or directory (default: the estimate)")
    ap.add_argument("--show", type=int, default=0, help="print N holes per package with their ground truth")
    ap.add_argument("--packages", default="", help="comma-separated import names to run (default: all)")
    ap.add_argument("--no-baseline", action="store_true", help="skip the sliding-window baseline")
    ap.add_argument("--role", choices=("dev", "held-out"), default=None, help="only packages of this role")
    args = ap.parse_args()
    count = load_token_counter(args.tokenizer) if args.tokenizer else None
    t_start = time.perf_counter()
    wanted = {name.strip() for name in args.packages.split(",") if name.strip()}
    data = load(args.per_package, wanted, args.role)
    rows = []
    for label, role, root, repo, holes in data:
        if args.show:
            for case in holes[: args.show]:
                print(f"[{label}] {case.file}:{case.line} {case.qualname}")
                for path, qual in sorted(case.truth):
                    print(f"      needs {path}::{qual}")
        res = run_package(label, root, repo, holes, count, args.cold_holes, not args.no_baseline)
        rows.append((label, role, repo, holes, res))
        print(f"... {label}: {len(holes)} holes done ({time.perf_counter() - t_start:.0f}s)", file=sys.stderr)

    print("\nPackages")
    print(f"{'package':<18}{'role':<10}{'files':>6}{'lines':>8}{'holes':>7}{'truth/hole':>12}")
    for label, role, repo, holes, res in rows:
        mean_truth = statistics.fmean(res["truth"]) if res["truth"] else 0
        print(
            f"{label:<18}{role:<10}{len(repo.files):>6}{line_count(repo):>8}{len(holes):>7}{mean_truth:>12.2f}"
        )

    print("\nRecall of cross-file definitions (macro mean over holes / micro pooled)")
    head = "".join(f"{b:>16}" for b in BUDGETS)
    print(f"{'method':<16}{'package':<18}{head}")
    groups = {
        "ALL": rows,
        "held-out": [r for r in rows if r[1] == "held-out"],
        "dev": [r for r in rows if r[1] == "dev"],
    }
    for method, key in (("codegym.context", "ours"), ("sliding-window", "base")):
        for label, _role, _repo, _holes, res in rows:
            cells = "".join(f"{fmt_recall(res[key][b], res['truth']):>16}" for b in BUDGETS)
            print(f"{method:<16}{label:<18}{cells}")
        for gname, group in groups.items():
            if not group:
                continue
            cells = ""
            for b in BUDGETS:
                found = [x for r in group for x in r[4][key][b]]
                truth = [x for r in group for x in r[4]["truth"]]
                cells += f"{fmt_recall(found, truth):>16}"
            print(f"{method:<16}{gname:<18}{cells}")

    print("\nUsable recall: the definition is shown with its signature (callable: parameters; class: its")
    print(
        "constructor when it has one in the repository), macro mean over holes; budget use: tokens / budget"
    )
    print("(use: the counter's tokens; bpe: a 32k code BPE's tokens, see context_tokens.py)")
    print(f"{'package':<18}" + "".join(f"{'usable ' + str(b):>14}" for b in BUDGETS), end="")
    print("".join(f"{'use ' + str(b):>10}" for b in BUDGETS), end="")
    print("".join(f"{'bpe ' + str(b):>10}" for b in BUDGETS) + f"{'blocks':>8}{'invalid':>8}")
    for gname, group in [*((r[0], [r]) for r in rows), *groups.items()]:
        if not group:
            continue
        truth = [x for r in group for x in r[4]["truth"]]
        cells = ""
        for b in BUDGETS:
            found = [x for r in group for x in r[4]["usable"][b]]
            cells += f"{recall(found, truth)[0]:>14.3f}"
        for b in BUDGETS:
            cells += f"{statistics.fmean(x for r in group for x in r[4]['fill'][b]):>10.2f}"
        for b in BUDGETS:
            real = [x for r in group for x in r[4]["real_fill"][b]]
            cells += f"{statistics.fmean(real):>10.2f}" if real else f"{'-':>10}"
        blocks = sum(r[4]["blocks"] for r in group)
        invalid = sum(r[4]["invalid"] for r in group)
        print(f"{gname:<18}{cells}{blocks:>8}{invalid:>8}")

    print("\nRecall at 1024 by kind of definition (pooled)")
    for gname, group in groups.items():
        kinds_found: dict[str, list[int]] = {}
        for r in group:
            for kind, (f, t) in r[4]["by_kind"].items():
                row = kinds_found.setdefault(kind, [0, 0])
                row[0] += f
                row[1] += t
        cells = "  ".join(f"{k} {f / t:.2f} ({t})" for k, (f, t) in sorted(kinds_found.items()) if t)
        if group:
            print(f"{gname:<10}{cells}")

    print("\nLatency per query, ms (median / p95)")
    kinds = ("cold", "cold-cpu", "disk-warm", "incremental", "warm", "baseline")
    print(f"{'package':<18}" + "".join(f"{k:>14}" for k in kinds))
    for label, _role, _repo, _holes, res in rows:
        cells = ""
        for k in kinds:
            values = [v * 1e3 for v in res["lat"][k]]
            shown = f"{statistics.median(values):.0f} / {pct(values, 0.95):.0f}" if values else "-"
            cells += f"{shown:>14}"
        print(f"{label:<18}{cells}")
    load1, load5, _ = os.getloadavg()
    print(
        f"\ncounter: {args.tokenizer or 'estimate'}; total {time.perf_counter() - t_start:.0f}s; "
        f"{os.cpu_count()} CPUs, load average {load1:.2f} (1 min) {load5:.2f} (5 min) at the end"
    )


if __name__ == "__main__":
    main()
