"""Cross-file resolution on the `shop` fixture repo with real tree-sitter parses."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from codegym.context.graph import RepoGraph, Sym
from codegym.context.model import MODULE_SCOPE, Reference
from codegym.context.parser import PythonParser
from codegym.context.repo import module_names, scan_repo

PKG = "src/shop"


@pytest.fixture
def graph(shop: Path) -> RepoGraph:
    repo = scan_repo(shop)
    parser = PythonParser()
    return RepoGraph(repo.files, {p: parser.parse(d) for p, d in repo.files.items()}, repo.root_name)


def qual(graph: RepoGraph, sym: Sym | None) -> str | None:
    if sym is None:
        return None
    d = graph.definition(sym)
    return f"{sym.path}::{d.qualname}" if d else f"{sym.path}::<module>"


def def_index(graph: RepoGraph, path: str, qualname: str) -> int:
    return next(i for i, d in enumerate(graph.parsed[path].definitions) if d.qualname == qualname)


def resolve(graph: RepoGraph, path: str, scope_qualname: str | None, *chain: str) -> str | None:
    scope = MODULE_SCOPE if scope_qualname is None else def_index(graph, path, scope_qualname)
    return qual(graph, graph.resolve_ref(path, Reference(tuple(chain), scope, 1, 0, False)))


def test_module_names_follow_packages_src_layout_and_scripts() -> None:
    paths = ["src/shop/__init__.py", "src/shop/sub/deep.py", "src/shop/sub/__init__.py", "scripts/report.py"]
    names = module_names([*paths, "top.py"])
    assert names["src/shop/__init__.py"] == "shop"
    assert names["src/shop/sub/deep.py"] == "shop.sub.deep"
    assert names["scripts/report.py"] == "scripts.report"
    assert names["top.py"] == "top"
    rooted = module_names(["__init__.py", "core.py"], root_name="pkg")
    assert rooted == {"__init__.py": "pkg", "core.py": "pkg.core"}


def test_relative_absolute_and_aliased_imports(graph: RepoGraph) -> None:
    p = f"{PKG}/pricing.py"
    assert resolve(graph, p, None, "Item") == f"{PKG}/models.py::Item"
    assert resolve(graph, p, None, "C") == f"{PKG}/models.py::Cart"  # `from .models import Cart as C`
    assert resolve(graph, p, None, "BaseModel") == f"{PKG}/base.py::Model"  # absolute + alias
    assert resolve(graph, p, None, "tax", "tax_for") == f"{PKG}/tax.py::tax_for"  # `import shop.tax as tax`
    assert resolve(graph, p, None, "models", "Item", "total") == f"{PKG}/models.py::Item.total"
    assert resolve(graph, p, None, "label") == f"{PKG}/sub/deep.py::label"
    # `..util` from a subpackage, aliased
    assert resolve(graph, f"{PKG}/sub/deep.py", None, "format_amount") == f"{PKG}/util.py::fmt"


def test_reexports_through_init_and_star_with_all(graph: RepoGraph) -> None:
    p = f"{PKG}/pricing.py"
    # `from shop import util` is the submodule; `shop.Item` is the re-export from .models
    assert resolve(graph, p, None, "util", "round_money") == f"{PKG}/util.py::round_money"
    init = f"{PKG}/__init__.py"
    assert qual(graph, graph.export(init, "Cart")) == f"{PKG}/models.py::Cart"
    assert qual(graph, graph.export(init, "fmt")) == f"{PKG}/util.py::fmt"  # via `from .util import *`
    assert graph.export(init, "_hidden") is None  # not in util.__all__
    report = "scripts/report.py"
    assert resolve(graph, report, None, "checkout") == f"{PKG}/pricing.py::checkout"
    assert resolve(graph, report, None, "helpers", "banner") == "scripts/helpers.py::banner"


def test_local_names_shadow_imports(graph: RepoGraph) -> None:
    p = f"{PKG}/pricing.py"
    assert resolve(graph, p, None, "fmt") == f"{PKG}/util.py::fmt"
    assert resolve(graph, p, "shadowed", "fmt") is None  # the parameter wins
    assert resolve(graph, p, "Invoice.render", "fmt") == f"{PKG}/util.py::fmt"


def test_class_hierarchy_self_and_super(graph: RepoGraph) -> None:
    p = f"{PKG}/pricing.py"
    invoice = Sym(p, def_index(graph, p, "Invoice"))
    assert [qual(graph, s) for s in graph.mro(invoice)] == [f"{p}::Invoice", f"{PKG}/base.py::Model"]
    assert resolve(graph, p, "Invoice.render", "self", "describe") == f"{PKG}/base.py::Model.describe"
    assert resolve(graph, p, "Invoice.validate", "super()", "validate") == f"{PKG}/base.py::Model.validate"
    # a class attribute through the hierarchy, and the class's own method first
    assert resolve(graph, p, "Invoice.render", "self", "table") == f"{PKG}/base.py::Model.table"
    assert resolve(graph, p, "Invoice.render", "self", "validate") == f"{p}::Invoice.validate"
    models = f"{PKG}/models.py"
    assert resolve(graph, models, "Item.total", "round_money") == f"{PKG}/util.py::round_money"


def test_nested_functions_resolve_locally(graph: RepoGraph) -> None:
    deep = f"{PKG}/sub/deep.py"
    assert resolve(graph, deep, "outer", "inner") == f"{deep}::outer.inner"
    assert resolve(graph, deep, None, "inner") is None  # not visible at module level


def test_broken_and_odd_files_are_indexed(graph: RepoGraph) -> None:
    broken = f"{PKG}/broken.py"
    assert graph.parsed[broken].has_errors
    assert resolve(graph, broken, None, "AfterError", "still_here") == f"{broken}::AfterError.still_here"
    assert graph.parsed[f"{PKG}/empty.py"].definitions == ()
    assert any(d.name == "PRICE" for d in graph.parsed[f"{PKG}/latin.py"].definitions)


def test_import_cycles_terminate(tmp_path: Path) -> None:
    (tmp_path / "__init__.py").write_text("")
    (tmp_path / "a.py").write_text("from .b import thing\n")
    (tmp_path / "b.py").write_text("from .a import thing\n")
    repo = scan_repo(tmp_path)
    parser = PythonParser()
    graph = RepoGraph(repo.files, {p: parser.parse(d) for p, d in repo.files.items()}, repo.root_name)
    assert graph.resolve_ref("a.py", Reference(("thing",), MODULE_SCOPE, 1, 0, False)) is None
    graph.in_degree()  # the repository-wide pass terminates too


def test_scan_cuts_symlink_loops_and_skips_huge_files(shop: Path) -> None:
    pkg = shop / PKG
    os.symlink(pkg, pkg / "sub" / "loop")  # sub/loop -> the package itself: a cycle
    os.symlink(shop / "missing.py", pkg / "dangling.py")
    (pkg / "huge.py").write_text("X = 1\n" * 200_000)
    repo = scan_repo(shop, max_file_bytes=500_000)
    assert f"{PKG}/pricing.py" in repo.files
    assert not any("loop/loop" in p for p in repo.files)
    assert f"{PKG}/huge.py" in repo.skipped and f"{PKG}/huge.py" not in repo.files
    assert f"{PKG}/dangling.py" in repo.skipped
    forced = scan_repo(shop, max_file_bytes=500_000, include=[f"{PKG}/huge.py"])
    assert f"{PKG}/huge.py" in forced.files  # the file holding the hole is always read
