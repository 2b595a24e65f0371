"""Why codegym.context misses definitions: every missed ground-truth definition of a "dev" package's
holes at one budget, with its rank, score, kind and how the original body reached it.

    .venv/bin/python benchmarks/context_misses.py --packages rich [--budget 1024] [--per-package 40]

Refuses "held-out" packages: they are only ever run through context_recall.py's summary tables.
The "via" column is the reference form in the ORIGINAL body (`name`, `mod.NAME`, `self.attr`,
`Cls.method`, `obj.attr` through a resolved chain), i.e. the signal that should have found it.
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_data import PACKAGES, load

from codegym.context import ContextEngine
from codegym.context.graph import RepoGraph
from codegym.context.model import MODULE_SCOPE
from codegym.context.rank import locate_hole, rank
from codegym.context.repo import RepoFiles


def via(graph: RepoGraph, path: str, qualname: str, truth: tuple[str, str]) -> str:
    """How the original body of `qualname` referenced `truth`: the shape of the first chain reaching it."""
    defs = graph.parsed[path].definitions
    d = next(x for x in defs if x.qualname == qualname and x.kind in ("function", "method"))
    start = d.doc_end if d.doc_start >= 0 else d.header_end
    for ref, _ in graph.targets_in(path, start, d.end_byte):
        root = graph.resolve_name(path, ref.scope, ref.chain[0]) if ref.chain[0] != "super()" else None
        sym = root
        for k, part in enumerate(ref.chain):
            if k == 0:
                if ref.chain[0] == "super()":
                    continue
            else:
                sym = graph.member(sym, part) if sym is not None else None
            if sym is not None and sym.is_definition and (sym.path, graph.definition(sym).qualname) == truth:
                shape = ["name"] if k == 0 else ["?"] * (k + 1)
                if k:
                    head = ref.chain[0]
                    if root is not None and root.index == MODULE_SCOPE:
                        shape = ["mod", *ref.chain[1 : k + 1]]
                    elif root is not None and root.instance:
                        shape = [head, *ref.chain[1 : k + 1]]
                    elif root is not None and graph.definition(root).kind == "class":
                        shape = ["Cls", *ref.chain[1 : k + 1]]
                    else:
                        shape = [head, *ref.chain[1 : k + 1]]
                return ".".join(shape)
            if sym is None:
                break
    return "?"


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--packages", required=True)
    ap.add_argument("--budget", type=int, default=1024)
    ap.add_argument("--per-package", type=int, default=40)
    args = ap.parse_args()
    wanted = {p.strip() for p in args.packages.split(",")}
    roles = {pkg: role for _, _, pkg, role in PACKAGES}
    bad = [p for p in wanted if roles.get(p) != "dev"]
    if bad:
        sys.exit(f"not dev packages (held-out ones are never inspected hole by hole): {bad}")
    shapes: Counter[str] = Counter()
    for label, _role, _root, repo, holes in load(args.per_package, wanted):
        engine = ContextEngine()
        pristine = engine.graph(repo)
        n_truth = n_miss = 0
        for case in holes:
            files = dict(repo.files)
            files[case.file] = case.blanked
            blanked = RepoFiles(files, repo.root_name)
            ctx = engine.query(blanked, case.file, case.line, args.budget)
            got = {(s.path, s.name) for s in ctx.symbols}
            missed = sorted(case.truth - got)
            n_truth += len(case.truth)
            n_miss += len(missed)
            if not missed:
                continue
            graph = engine.graph(blanked)
            ranked = rank(graph, locate_hole(graph, case.file, case.line), engine.weights)
            pos = {(s.path, graph.definition(s).qualname): (k, v) for k, (s, v) in enumerate(ranked)}
            print(f"[{label}] {case.file}::{case.qualname}  truth {len(case.truth)}  shown {len(got)}")
            for key in missed:
                k, v = pos.get(key, (-1, 0.0))
                kind = next(
                    (d.kind for d in pristine.parsed[key[0]].definitions if d.qualname == key[1]), "?"
                )
                shape = via(pristine, case.file, case.qualname, key)
                shapes[f"{kind}:{shape.split('.')[0]}{'.x' if '.' in shape else ''}"] += 1
                print(f"    miss {key[0]}::{key[1]:<40} {kind:<9} rank {k:>4} score {v:6.2f}  via {shape}")
        print(f"== {label}: {n_miss} missed of {n_truth}")
    print("\nmisses by kind:shape", dict(shapes.most_common()))


if __name__ == "__main__":
    main()
