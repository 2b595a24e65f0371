"""Scale of codegym.context: first query, disk-warm query, one-file edit and warm query by repository size.

    .venv/bin/python benchmarks/context_scale.py [--packages rich,networkx,sympy] [--holes 5]
                                                 [--lazy-min-bytes N | --lazy-min-bytes none]
    .venv/bin/python benchmarks/context_scale.py --quality 30 [--packages sympy] [--lines 30000,60000]
    .venv/bin/python benchmarks/context_scale.py --recall-lazy [context_recall.py's options]

Each measurement runs in a fresh child process (so peak memory is that query's, not the benchmark's):
  cold         new engine, no caches: scan + index + rank + render. Below the engine's lazy_min_bytes
               (12 MB of sources by default) the index is the full graph (every file parsed and
               resolved); at or above it, a lazy graph of the queried file's neighbourhood
  disk-warm    new engine, SQLite parse cache already filled (what a second CLI call costs, minus
               interpreter start-up)
  edit         in a warm engine that has answered a hole of the file, a function body of that file is
               blanked (an interface-preserving edit): graph update + query (median over --holes)
  warm         the same state queried again (ranking + rendering only)
Wall seconds, CPU seconds and peak RSS (ru_maxrss of the child, includes the interpreter and
tree-sitter, about 60 MB before any work). The hole of cold / disk-warm is the middle line of the
largest file.

--quality N compares the recall of full and lazy answers on N holes per package; --recall-lazy runs
context_recall.py with every query on a lazy graph (what laziness costs on its packages).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
sys.path.insert(0, str(Path(__file__).resolve().parent))

from context_data import SCALE_PACKAGES, fetch


def child(root: str, mode: str, cache: str, holes: int, lazy_min_bytes: int | None) -> None:
    from context_data import make_holes

    from codegym.context import ContextEngine
    from codegym.context.repo import RepoFiles, scan_repo

    out: dict[str, object] = {}
    t0, c0 = time.perf_counter(), time.process_time()
    engine = ContextEngine(Path(cache) if mode != "cold" else None, lazy_min_bytes=lazy_min_bytes)
    repo = scan_repo(Path(root))
    # a fixed hole: the last top-level function of the largest file
    path = max(repo.files, key=lambda p: len(repo.files[p]))
    line = repo.files[path].count(b"\n") // 2
    engine.query(repo, path, line, 1024)
    out["wall"], out["cpu"] = time.perf_counter() - t0, time.process_time() - c0
    out["lines"] = sum(d.count(b"\n") for d in repo.files.values())
    out["files"] = len(repo.files)
    out["stats"] = dict(engine.stats)
    if mode == "edit":
        cases = make_holes("x", repo, holes)
        edits, edits_cpu, warm = [], [], []
        for case in cases:
            engine.query(repo, case.file, case.line, 1024)  # the file being worked on, before the edit
            files = dict(repo.files)
            files[case.file] = case.blanked
            blanked = RepoFiles(files, repo.root_name)
            t1, c1 = time.perf_counter(), time.process_time()
            engine.query(blanked, case.file, case.line, 1024)
            edits.append(time.perf_counter() - t1)
            edits_cpu.append(time.process_time() - c1)
            t1 = time.perf_counter()
            engine.query(blanked, case.file, case.line, 1024)
            warm.append(time.perf_counter() - t1)
        out["edit"] = statistics.median(edits)
        out["edit_cpu"] = statistics.median(edits_cpu)
        out["warm"] = statistics.median(warm)
        out["stats"] = engine.stats
    out["rss_mb"] = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(json.dumps(out))


def run(root: Path, mode: str, cache: str, holes: int, lazy: str) -> dict:
    proc = subprocess.run(
        [sys.executable, __file__, "--child", str(root), mode, cache, str(holes), lazy],
        capture_output=True,
        text=True,
        check=True,
    )
    return json.loads(proc.stdout.strip().splitlines()[-1])


def quality(root: Path, package: str, holes: int, lines: list[int]) -> None:
    """Recall of the full graph's answers and of lazy answers (one per neighbourhood line budget) on
    the same holes: the share of each blanked body's cross-file definitions in the context (mean)."""
    from context_data import make_holes

    from codegym.context import ContextEngine
    from codegym.context.repo import RepoFiles, scan_repo

    repo = scan_repo(root)
    cases = make_holes(package, repo, holes)
    full = ContextEngine(lazy_min_bytes=None)
    full.graph(repo)  # the pristine repository once: every hole is then an incremental update
    engines = {
        "full": full,
        **{f"lazy {n // 1000}k": ContextEngine(lazy_min_bytes=0, neighbourhood_lines=n) for n in lines},
    }
    found: dict[tuple[str, int], list[float]] = {}
    for case in cases:
        blanked = RepoFiles({**repo.files, case.file: case.blanked}, repo.root_name)
        for label, engine in engines.items():
            for budget in (1024, 2048):
                ctx = engine.query(blanked, case.file, case.line, budget)
                got = {(s.path, s.name) for s in ctx.symbols}
                found.setdefault((label, budget), []).append(len(got & case.truth) / len(case.truth))
    for (label, budget), values in sorted(found.items()):
        print(
            f"{package:<10}{label:<12}recall@{budget:<6}{statistics.mean(values):.3f}  ({len(values)} holes)"
        )


def recall_lazy(args: list[str]) -> None:
    """benchmarks/context_recall.py with every query on a lazy graph (`lazy_min_bytes=0`)."""
    import runpy

    from codegym.context.engine import ContextEngine

    assert ContextEngine.__init__.__kwdefaults__ is not None
    ContextEngine.__init__.__kwdefaults__["lazy_min_bytes"] = 0  # what `ContextEngine()` there gets
    script = Path(__file__).resolve().parent / "context_recall.py"
    sys.argv = [str(script), *args]
    runpy.run_path(str(script), run_name="__main__")


def main() -> None:
    if len(sys.argv) > 1 and sys.argv[1] == "--recall-lazy":
        recall_lazy(sys.argv[2:])
        return
    if len(sys.argv) > 1 and sys.argv[1] == "--child":
        lazy = None if sys.argv[6] == "none" else int(sys.argv[6])
        child(sys.argv[2], sys.argv[3], sys.argv[4], int(sys.argv[5]), lazy)
        return
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--packages", default="", help="comma-separated import names (default: all)")
    ap.add_argument("--holes", type=int, default=5)
    ap.add_argument(
        "--lazy-min-bytes", default="default", help="engine's lazy_min_bytes: an integer, none, or default"
    )
    ap.add_argument(
        "--quality",
        type=int,
        default=0,
        help="instead: recall of full vs lazy answers on this many holes per package",
    )
    ap.add_argument("--lines", default="30000,60000", help="--quality: neighbourhood line budgets")
    args = ap.parse_args()
    wanted = {p for p in args.packages.split(",") if p}
    if args.quality:
        for name, version, package in SCALE_PACKAGES:
            if not wanted or package in wanted:
                quality(
                    fetch(name, version, package),
                    package,
                    args.quality,
                    [int(n) for n in args.lines.split(",")],
                )
        return
    from codegym.context.engine import LAZY_MIN_BYTES

    lazy = str(LAZY_MIN_BYTES) if args.lazy_min_bytes == "default" else args.lazy_min_bytes
    print(f"lazy_min_bytes={lazy}")
    print(
        f"{'package':<18}{'files':>6}{'lines':>9}{'graph':>6}{'parsed':>7}{'cold s':>8}{'cpu s':>7}{'MB':>6}"
        f"{'disk-warm s':>12}{'cpu s':>7}{'MB':>6}{'edit ms':>9}{'cpu ms':>8}{'warm ms':>9}"
    )
    for name, version, package in SCALE_PACKAGES:
        if wanted and package not in wanted:
            continue
        root = fetch(name, version, package)
        with tempfile.TemporaryDirectory() as cache:
            cold = run(root, "cold", cache, args.holes, lazy)
            run(root, "fill", cache, args.holes, lazy)  # fills the disk cache
            disk = run(root, "disk", cache, args.holes, lazy)
            edit = run(root, "edit", cache, args.holes, lazy)
        kind = "lazy" if cold["stats"]["lazy_builds"] else "full"
        print(
            f"{name + ' ' + version:<18}{cold['files']:>6}{cold['lines']:>9}{kind:>6}"
            f"{cold['stats']['parsed']:>7}{cold['wall']:>8.2f}"
            f"{cold['cpu']:>7.2f}{cold['rss_mb']:>6.0f}{disk['wall']:>12.2f}{disk['cpu']:>7.2f}"
            f"{disk['rss_mb']:>6.0f}{edit['edit'] * 1e3:>9.0f}{edit['edit_cpu'] * 1e3:>8.0f}"
            f"{edit['warm'] * 1e3:>9.0f}",
            flush=True,
        )
    load1, load5, _ = os.getloadavg()
    print(f"\n{os.cpu_count()} CPUs, load average {load1:.2f} (1 min) {load5:.2f} (5 min) at the end")


if __name__ == "__main__":
    main()
