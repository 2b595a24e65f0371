"""Lazy graphs (large repositories): light parses, on-demand resolution, what a lazy answer shares with
the full build's, and incremental updates of a lazy graph equal a fresh lazy build.

Real packages from the standard library (no network); `lazy_min_bytes=0` makes an engine lazy on them.
"""

from __future__ import annotations

import dataclasses
import email
import logging
import os
from pathlib import Path

import pytest
from test_context_render import graph_tables, holes

from codegym.context import ContextEngine
from codegym.context.graph import RepoGraph
from codegym.context.lazy import neighbourhood, words_of
from codegym.context.parser import LIGHT_PREFIX, PythonParser
from codegym.context.rank import locate_hole, rank
from codegym.context.repo import RepoFiles, scan_repo

ROOTS = [Path(email.__file__).parent, Path(logging.__file__).parent]
OWN = Path(__file__).resolve().parents[2] / "codegym" / "context"


def lazy_graph(repo: RepoFiles, covered: list[str]) -> RepoGraph:
    parser = PythonParser()
    return RepoGraph.lazy(
        repo.files,
        lambda _p, data: parser.parse(data),
        repo.root_name,
        covered,
        light=lambda _p, data: parser.parse(data, light=True),
    )


@pytest.mark.parametrize("root", [*ROOTS, OWN])
def test_light_parse_is_the_full_parse_without_references(root: Path) -> None:
    parser = PythonParser()
    for data in scan_repo(root).files.values():
        full, light = parser.parse(data, "h"), parser.parse(data, "h", light=True)
        assert light.content_hash == LIGHT_PREFIX + "h"
        assert light.references == ()
        assert dataclasses.replace(light, content_hash="h", references=full.references) == full


@pytest.mark.parametrize("root", ROOTS)
def test_lazy_graph_covering_every_file_equals_the_full_graph(root: Path) -> None:
    repo = scan_repo(root)
    full = ContextEngine().graph(repo)
    lazy = lazy_graph(repo, sorted(repo.files))
    assert lazy.is_lazy and not full.is_lazy
    assert graph_tables(lazy) == graph_tables(full)
    for path, line, _ in holes(repo, ContextEngine(), 6):
        assert rank(lazy, locate_hole(lazy, path, line)) == rank(full, locate_hole(full, path, line))


@pytest.mark.parametrize("root", ROOTS)
def test_lazy_answer_differs_from_the_full_one_only_in_what_the_tables_cover(root: Path) -> None:
    """Resolution is exact (files are parsed when it reaches them); in-degree, users and the ranking's
    tables count only the covered files' references, so scores (not resolution) can differ: on these
    packages 50-70% of the full answer's definitions are in the lazy one (recall measured with
    benchmarks/context_recall.py is not lower, see README)."""
    repo = scan_repo(root)
    full = ContextEngine().graph(repo)
    full.in_degree()
    engine = ContextEngine(lazy_min_bytes=0)
    for path, line, _ in holes(repo, engine, 4):
        ctx = engine.query(repo, path, line, 1024)
        graph = engine.graph(repo, focus=path)
        covered = set(graph.covered)
        assert path in covered
        for p in covered:
            assert graph.resolved(p) == full.resolved(p)
        expected: dict = {}
        for sym, users in (full._users or {}).items():
            kept = {u for u in users if u[0] in covered}
            if kept:
                expected[sym] = len(kept)
        assert graph.in_degree() == expected
        # every definition shown is one the full graph knows, at the same place
        qualnames = {(p, d.qualname, d.start_line) for p in repo.files for d in full.parsed[p].definitions}
        assert all((s.path, s.name, s.line) in qualnames for s in ctx.symbols)
        assert ctx.token_count <= 1024


@pytest.mark.parametrize("root", ROOTS)
def test_lazy_incremental_update_equals_a_fresh_lazy_build(root: Path) -> None:
    repo = scan_repo(root)
    engine = ContextEngine(lazy_min_bytes=0)
    edits = holes(repo, ContextEngine(), 4)
    assert len(edits) >= 3
    for path, line, blanked in edits:
        engine.query(repo, path, line, 1024)  # the file was being worked on before the edit
        files = RepoFiles({**repo.files, path: blanked}, repo.root_name)
        before = engine.stats["incremental_builds"]
        patched = engine.query(files, path, line, 1024)
        assert engine.stats["incremental_builds"] == before + 1  # a blanked body keeps the interface
        fresh_engine = ContextEngine(lazy_min_bytes=0)
        rebuilt = fresh_engine.query(files, path, line, 1024)
        assert fresh_engine.stats["incremental_builds"] == 0
        assert patched.text == rebuilt.text
        assert patched.symbols == rebuilt.symbols
        graph, fresh = engine.graph(files, focus=path), fresh_engine.graph(files, focus=path)
        assert graph.covered == fresh.covered
        assert graph_tables(graph) == graph_tables(fresh)
    # an edit that changes what other files see is a new lazy build, with the same answer
    path = edits[0][0]
    files = RepoFiles({**repo.files, path: repo.files[path] + b"\n\ndef brand_new():\n    pass\n"})
    before = engine.stats["lazy_builds"]
    assert (
        engine.query(files, path, 1, 512).text
        == ContextEngine(lazy_min_bytes=0).query(files, path, 1, 512).text
    )
    assert engine.stats["lazy_builds"] == before + 1


def test_engine_is_lazy_only_at_or_above_its_threshold() -> None:
    repo = scan_repo(ROOTS[0])
    path = "mime/text.py"
    size = sum(len(data) for data in repo.files.values())
    assert not ContextEngine(lazy_min_bytes=size + 1).graph(repo, focus=path).is_lazy
    assert not ContextEngine(lazy_min_bytes=None).graph(repo, focus=path).is_lazy
    assert not ContextEngine(lazy_min_bytes=0).graph(repo).is_lazy  # no focus: the full graph
    lazy = ContextEngine(lazy_min_bytes=size).graph(repo, focus=path)
    assert lazy.is_lazy
    # a leaf module: what it imports, and the files using those names, within the line budget
    assert len(lazy.covered) < len(repo.files)
    assert len(lazy.parsed.computed()) < len(repo.files)  # type: ignore[attr-defined]
    assert {"mime/text.py", "mime/nonmultipart.py", "charset.py"} <= set(lazy.covered)


def test_neighbourhood_is_deterministic_and_budgeted() -> None:
    repo = scan_repo(ROOTS[1])
    graph = lazy_graph(repo, [])
    words = {p: words_of(data) for p, data in repo.files.items()}
    first = neighbourhood(graph, "handlers.py", words.__getitem__, max_lines=10**6)
    assert first == neighbourhood(lazy_graph(repo, []), "handlers.py", words.__getitem__, max_lines=10**6)
    assert first[0] == "handlers.py" and "__init__.py" in first  # `import logging`
    small = neighbourhood(graph, "handlers.py", words.__getitem__, max_lines=1)
    assert small == first[: len(small)] and len(small) < len(first)


def test_lazy_parses_go_through_the_disk_cache(tmp_path: Path) -> None:
    repo = scan_repo(ROOTS[0])
    path, line, _ = holes(repo, ContextEngine(), 1)[0]
    first = ContextEngine(tmp_path, lazy_min_bytes=0)
    answer = first.query(repo, path, line, 1024)
    first.close()
    again = ContextEngine(tmp_path, lazy_min_bytes=0)  # a new process would start like this
    assert again.query(repo, path, line, 1024).text == answer.text
    assert again.stats["parsed"] == 0 and again.stats["disk_hits"] > 0


def test_a_restricted_graph_parses_what_it_reaches_light() -> None:
    repo = scan_repo(ROOTS[0])
    parser = PythonParser()
    base = RepoGraph.lazy(repo.files, lambda _p, data: parser.parse(data), repo.root_name)
    view = base.restricted(["mime/text.py"], light=lambda _p, data: parser.parse(data, light=True))
    view.index["charset.py"]  # through the index, as resolution reaches a file
    assert view.parsed["charset.py"].content_hash.startswith(LIGHT_PREFIX)
    assert view.resolved("charset.py")  # references wanted: parsed fully then
    assert not view.parsed["charset.py"].content_hash.startswith(LIGHT_PREFIX)


def test_hashes_remembered_by_identity_stay_within_their_byte_budget(monkeypatch: pytest.MonkeyPatch) -> None:
    import codegym.context.engine as engine_module
    from codegym.context.cache import content_hash

    monkeypatch.setattr(engine_module, "_HASHED_BYTES_KEPT", 100)
    engine = ContextEngine()
    blobs = [bytes([i]) * 30 for i in range(10)]
    assert [engine._hash(b) for b in blobs] == [content_hash(b) for b in blobs]
    assert engine._hashed_bytes <= 100 and len(engine._hashes) == 3
    assert engine._hash(blobs[-1]) == content_hash(blobs[-1])  # remembered: same object


def test_a_lazy_answer_is_the_same_in_every_process() -> None:
    """Set iteration order changes with the hash seed; the neighbourhood and the answer must not."""
    import subprocess
    import sys

    code = (
        "import email, sys; from pathlib import Path; from codegym.context import ContextEngine;"
        "from codegym.context.repo import scan_repo;"
        "repo = scan_repo(Path(email.__file__).parent); engine = ContextEngine(lazy_min_bytes=0);"
        "ctx = engine.query(repo, 'feedparser.py', 300, 1024);"
        "print(engine.graph(repo, focus='feedparser.py').covered); print(ctx.text)"
    )
    root = Path(__file__).resolve().parents[2]
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            cwd=root,
            env={**os.environ, "PYTHONHASHSEED": seed},
            capture_output=True,
            text=True,
            check=True,
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1


def test_editing_another_covered_file_patches_the_lazy_graph_too() -> None:
    repo = scan_repo(ROOTS[0])
    engine = ContextEngine(lazy_min_bytes=0)
    engine.query(repo, "mime/text.py", 30, 1024)
    covered = engine.graph(repo, focus="mime/text.py").covered
    edits = [e for e in holes(repo, ContextEngine(), 40) if e[0] in covered and e[0] != "mime/text.py"]
    assert edits
    path, _, blanked = edits[0]
    files = RepoFiles({**repo.files, path: blanked}, repo.root_name)
    before = engine.stats["incremental_builds"]
    patched = engine.query(files, "mime/text.py", 30, 1024)
    assert engine.stats["incremental_builds"] == before + 1
    fresh_engine = ContextEngine(lazy_min_bytes=0)
    assert patched.text == fresh_engine.query(files, "mime/text.py", 30, 1024).text
    graph, fresh = engine.graph(files, focus="mime/text.py"), fresh_engine.graph(files, focus="mime/text.py")
    assert graph.covered == fresh.covered
    assert graph_tables(graph) == graph_tables(fresh)


def test_a_query_leaves_the_garbage_collector_as_it_found_it() -> None:
    import gc

    repo = scan_repo(ROOTS[1])
    assert gc.isenabled()
    ContextEngine().query(repo, "handlers.py", 100, 512)
    assert gc.isenabled()
    gc.disable()
    try:
        ContextEngine(lazy_min_bytes=0).query(repo, "handlers.py", 100, 512)
        assert not gc.isenabled()
    finally:
        gc.enable()
