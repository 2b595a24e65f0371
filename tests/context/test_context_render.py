"""Rendering: every block is valid Python (real repositories), signatures rather than names, the
budget filled and degraded gracefully, and incremental graph updates equal a full rebuild."""

from __future__ import annotations

import ast
import email
import json
import logging
import os
import re
import textwrap
import xml
from pathlib import Path

import pytest

from codegym.context import ContextEngine, estimate_tokens
from codegym.context.graph import Sym
from codegym.context.model import MODULE_SCOPE
from codegym.context.rank import _CoUsage, _NameIndex, locate_hole, rank
from codegym.context.render import render_item
from codegym.context.repo import RepoFiles, scan_repo

# real packages on disk: parts of the standard library (no network), plus this project's own code
STDLIB = Path(os.__file__).parent
REPOS = [
    Path(email.__file__).parent,
    Path(json.__file__).parent,
    Path(logging.__file__).parent,
    Path(xml.__file__).parent,
    STDLIB / "http",
    Path(__file__).resolve().parents[2] / "codegym" / "context",
]
_BLOCK = re.compile(r"^# file: (.+)$", re.M)


def blocks(text: str) -> list[tuple[str, str]]:
    """(path, body) of each definitions block; the current-file window is a verbatim prefix, skipped."""
    marks = list(_BLOCK.finditer(text))
    out = []
    for k, mark in enumerate(marks):
        end = marks[k + 1].start() if k + 1 < len(marks) else len(text)
        if "(current file" not in mark.group(1):
            out.append((mark.group(1), text[mark.end() : end]))
    return out


def holes(repo: RepoFiles, engine: ContextEngine, count: int) -> list[tuple[str, int, bytes]]:
    """`count` functions with bodies of 3+ lines, spread over the repository: (file, hole line, file
    with that body blanked)."""
    graph = engine.graph(repo)
    found = []
    for path in sorted(repo.files):
        source = repo.files[path]
        for d in graph.parsed[path].definitions:
            if d.kind not in ("function", "method") or d.end_line - d.body_line < 3:
                continue
            kept = source[: d.doc_end] if d.doc_start >= 0 else source[: d.header_end] + b" ..."
            found.append((path, kept.count(b"\n") + 2, kept + source[d.end_byte :]))
    return found[:: max(1, len(found) // count)][:count]


def test_every_rendered_block_parses_across_real_repositories() -> None:
    checked = 0
    for root in REPOS:
        repo = scan_repo(root)
        engine = ContextEngine()
        for path, line, blanked in holes(repo, engine, 10):
            files = {**repo.files, path: blanked}
            for budget in (200, 1024, 2048):
                ctx = engine.query(RepoFiles(files, repo.root_name), path, line, budget)
                assert ctx.token_count == estimate_tokens(ctx.text) <= budget
                for block_path, body in blocks(ctx.text):
                    try:
                        ast.parse(body)
                    except SyntaxError as exc:  # pragma: no cover - the failure message is the point
                        pytest.fail(f"{root.name}/{block_path} for a hole at {path}:{line}: {exc}\n{body}")
                    checked += 1
    assert checked > 300


MINI = {
    "pkg/__init__.py": "",
    "pkg/types.py": """
        from typing import Union

        HeaderTypes = Union[
            "Headers",
            dict[str, str],
            list[tuple[str, str]],
            list[tuple[bytes, bytes]],
            "SomeOtherVeryLongTypeNameThatMakesThisLong",
        ]
        TIMEOUT = 5.0
        """,
    "pkg/models.py": '''
        from dataclasses import dataclass


        class Base:
            def __init__(self, name: str, *, verbose: bool = False) -> None:
                self.name = name

            def describe(self) -> str:
                """Describe it.\\\\d with a backslash."""
                return self.name


        class Child(Base):
            def extra(self, n: int = 3) -> list[int]:
                return [n]


        class Plain:
            def run(self, x: int) -> int:
                return x

            @property
            def size(self) -> int:
                """Number of items."""
                return 1

            @size.setter
            def size(self, value: int) -> None:
                pass


        @dataclass
        class Point:
            x: float
            y: float = 0.0


        class Wide:
            def __init__(self, a, b, c=1, d=2, e=3, f=4, g=5, h=6, i=7, j=8, k=9, l=10, m=11, n=12,
                         o=13, p=14, q=15, r=16, s=17, t=18, u=19, v=20, w=21, x=22, y=23, z=24,
                         aa=25, bb=26, cc=27, dd=28, ee=29, ff=30, gg=31, hh=32, ii=33, jj=34):
                pass


        def build(items: list[str], *, limit: int = 10, sep: str = ", ") -> str:
            return sep.join(items[:limit])
        ''',
    "pkg/use.py": '''
        from pkg import types
        from pkg.models import Base, Child, Plain, Point, Wide, build


        def work(p: Plain, c: Child) -> str:
            """Use Plain.size and build with types.TIMEOUT."""
        ''',
}


@pytest.fixture
def mini(tmp_path: Path) -> RepoFiles:
    for rel, text in MINI.items():
        target = tmp_path / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(textwrap.dedent(text).lstrip("\n"))
    return scan_repo(tmp_path)


def sym(graph, path: str, qualname: str) -> Sym:
    for i, d in enumerate(graph.parsed[path].definitions):
        if d.qualname == qualname:
            return Sym(path, i)
    raise KeyError(qualname)


def test_signature_rendering_cases(mini: RepoFiles) -> None:
    graph = ContextEngine().graph(mini)
    models = "pkg/models.py"
    # a multi-line assignment is whole or validly elided, never cut mid-expression
    alias = render_item(graph, sym(graph, "pkg/types.py", "HeaderTypes"), "signature")
    assert alias == "HeaderTypes = Union[...]"
    assert render_item(graph, sym(graph, "pkg/types.py", "HeaderTypes"), "name") == "HeaderTypes = ..."
    assert render_item(graph, sym(graph, "pkg/types.py", "TIMEOUT"), "signature") == "TIMEOUT = 5.0"
    # a class at signature tier carries its constructor; an inherited one says where it comes from and
    # is compact (names only: sibling classes repeat it, the base shows it annotated)
    base = render_item(graph, sym(graph, models, "Base"), "signature")
    assert base == "class Base:\n    def __init__(self, name: str, *, verbose: bool = False) -> None: ..."
    child = render_item(graph, sym(graph, models, "Child"), "signature")
    assert "class Child(Base):" in child
    assert "def __init__(self, name, *, verbose=...): ...  # from Base" in child
    assert render_item(graph, sym(graph, models, "Child"), "name") == "class Child(Base): ..."
    # dataclass-style classes show their fields
    point = render_item(graph, sym(graph, models, "Point"), "signature")
    assert point == "@dataclass\nclass Point:\n    x: float\n    y: float = 0.0"
    # a property with a setter is its getter
    size = render_item(graph, sym(graph, models, "Plain.size"), "doc")
    assert size == '@property\ndef size(self) -> int:\n    """Number of items."""'
    # a function: the full signature with defaults and annotations; compact at the name tier
    full_sig = "def build(items: list[str], *, limit: int = 10, sep: str = ', ') -> str: ..."
    assert render_item(graph, sym(graph, models, "build"), "signature") == full_sig.replace("', '", '", "')
    assert (
        render_item(graph, sym(graph, models, "build"), "name")
        == "def build(items, *, limit=..., sep=...): ..."
    )
    # a docstring with a backslash stays a valid literal
    describe = render_item(graph, sym(graph, models, "Base.describe"), "doc")
    assert ast.parse(describe) and "backslash" in describe
    # a very wide constructor is shortened, required parameters kept, the rest counted
    wide = render_item(graph, sym(graph, models, "Wide"), "signature")
    assert "def __init__(self, a, b" in wide and "more parameters" in wide and len(wide) < 300
    for path in ("pkg/types.py", models):
        for i, d in enumerate(graph.parsed[path].definitions):
            if d.parent == MODULE_SCOPE or graph.parsed[path].definitions[d.parent].kind == "class":
                for tier in ("name", "signature", "doc", "full"):
                    ast.parse(render_item(graph, Sym(path, i), tier))


def test_class_members_nest_under_a_header_without_docstring(mini: RepoFiles) -> None:
    engine = ContextEngine()
    ctx = engine.query(mini, "pkg/use.py", 8, 1000)
    chosen = {s.name for s in ctx.symbols}
    assert {"Plain", "Plain.size", "build"} <= chosen
    for _, body in blocks(ctx.text):
        ast.parse(body)
    assert "class Plain:\n" in ctx.text  # members follow, no `class Plain: ...` with members after it
    assert "def size(self) -> int" in ctx.text and "value: int" not in ctx.text


def test_budget_is_filled_and_degrades_before_dropping(tmp_path: Path) -> None:
    repo = scan_repo(Path(email.__file__).parent)
    engine = ContextEngine()
    for path, line, blanked in holes(repo, engine, 12):
        files = RepoFiles({**repo.files, path: blanked}, repo.root_name)
        for budget in (512, 1024):
            ctx = engine.query(files, path, line, budget)
            graph = engine.graph(files)
            candidates = len(rank(graph, locate_hole(graph, path, line)))
            if len(ctx.symbols) < candidates:
                assert ctx.token_count >= 0.9 * budget, (path, line, budget, ctx.token_count)
    # a definition too big for the budget comes by name rather than not at all
    (tmp_path / "big.py").write_text(
        "class Huge:\n    def __init__(self, "
        + ", ".join(f"p{i}: int = {i}" for i in range(60))
        + "):\n        pass\n"
    )
    (tmp_path / "hole.py").write_text(
        'from big import Huge\n\n\ndef make() -> "Huge":\n    """Build one."""\n'
    )
    ctx = ContextEngine().query(scan_repo(tmp_path), "hole.py", 6, 40)
    assert [(s.name, s.rendered) for s in ctx.symbols] == [("Huge", "name")]
    assert "class Huge: ..." in ctx.text


def test_a_tokenizer_counts_the_budget(mini: RepoFiles, trained_tokenizer: Path) -> None:
    from codegym.context import load_token_counter

    count = load_token_counter(trained_tokenizer)
    ctx = ContextEngine().query(mini, "pkg/use.py", 8, 300, count)
    assert ctx.token_count == count(ctx.text) <= 300 and ctx.counter == str(trained_tokenizer)


def graph_tables(graph) -> tuple:
    names = _NameIndex.of(graph)
    co = _CoUsage.of(graph)
    return (
        graph.in_degree(),
        {k: v for k, v in graph._users.items()},
        {p: graph.resolved(p) for p in graph.parsed},
        names.tokens,
        names.members,
        names.idf,
        {k: v for k, v in co.by_scope.items() if v},
        {k: v for k, v in co.users.items() if v},
    )


@pytest.mark.parametrize("root", [Path(email.__file__).parent, Path(logging.__file__).parent])
def test_incremental_update_equals_a_full_rebuild(root: Path) -> None:
    repo = scan_repo(root)
    engine = ContextEngine()
    base = engine.graph(repo)
    engine.query(repo, sorted(repo.files)[0], 1, 512)  # builds the repository-wide tables to patch
    graph_tables(base)
    edits = holes(repo, engine, 4)
    assert len(edits) >= 3
    for path, line, blanked in edits:
        files = RepoFiles({**repo.files, path: blanked}, repo.root_name)
        before = engine.stats["incremental_builds"]
        patched = engine.query(files, path, line, 1024)
        assert engine.stats["incremental_builds"] == before + 1  # a blanked body keeps the interface
        rebuilt = ContextEngine().query(files, path, line, 1024)
        assert patched.text == rebuilt.text
        assert patched.symbols == rebuilt.symbols
        assert graph_tables(engine.graph(files)) == graph_tables(ContextEngine().graph(files))
    # an edit that changes what other files see (a new module-level name) is a full rebuild
    path = edits[0][0]
    files = RepoFiles({**repo.files, path: repo.files[path] + b"\n\ndef brand_new():\n    pass\n"})
    before = engine.stats["full_builds"]
    assert engine.query(files, path, 1, 512).text == ContextEngine().query(files, path, 1, 512).text
    assert engine.stats["full_builds"] == before + 1


def test_a_class_name_is_shown_with_its_bases_reduced_to_names() -> None:
    # a computed or subscripted base costs more than the class's name and says less (urllib3's `Url`,
    # a `typing.NamedTuple("Url", [...7 fields...])` base, cost ~100 tokens at the name tier and
    # was left out at rank 6): the name tier keeps each base's name, no decorators, no `Generic[...]`
    source = textwrap.dedent(
        '''
        import typing


        class Url(
            typing.NamedTuple(
                "Url",
                [
                    ("scheme", typing.Optional[str]),
                    ("host", typing.Optional[str]),
                ],
            )
        ):
            """A URL."""


        @decorate()
        class Param(typing.Generic[A, B], Base[str], metaclass=Meta):
            """A parameter."""


        class Options(typing.TypedDict, total=False):
            name: str
        '''
    ).lstrip("\n")
    repo = RepoFiles({"url.py": source.encode()}, "pkg")
    graph = ContextEngine().graph(repo)
    url, param, options = (sym(graph, "url.py", name) for name in ("Url", "Param", "Options"))
    assert render_item(graph, url, "name") == "class Url(typing.NamedTuple(...)): ..."
    assert render_item(graph, param, "name") == "class Param(Base, metaclass=Meta): ..."
    assert render_item(graph, options, "name") == "class Options(typing.TypedDict): ..."
    # the other tiers keep a short header as written (decorators too) and reduce only a long one
    assert render_item(graph, options, "signature").startswith(
        "class Options(typing.TypedDict, total=False):"
    )
    assert render_item(graph, url, "signature").startswith("class Url(typing.NamedTuple(...)):")
    assert render_item(graph, param, "signature").startswith(
        "@decorate()\nclass Param(typing.Generic[A, B], Base[str], metaclass=Meta):"
    )
    for item in (url, param, options):
        for tier in ("name", "signature", "doc"):
            assert ast.parse(render_item(graph, item, tier))


def test_the_name_tier_keeps_only_a_short_annotation() -> None:
    source = "import typing as t\n\nUNSET: t.Literal[Sentinel.UNSET] = Sentinel.UNSET\nTIMEOUT: float = 5.0\n"
    graph = ContextEngine().graph(RepoFiles({"consts.py": source.encode()}, "pkg"))
    assert render_item(graph, sym(graph, "consts.py", "UNSET"), "name") == "UNSET = ..."
    assert render_item(graph, sym(graph, "consts.py", "TIMEOUT"), "name") == "TIMEOUT: float = ..."
    assert render_item(graph, sym(graph, "consts.py", "UNSET"), "signature").startswith("UNSET: t.Literal[")
