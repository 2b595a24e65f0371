"""tree-sitter extraction: definitions, imports, references, scopes, and files that are not clean."""

from __future__ import annotations

import pytest
from context_samples import BROKEN, LATIN1

from codegym.context.cache import ParseCache, content_hash
from codegym.context.model import MODULE_SCOPE, ParsedFile
from codegym.context.parser import PythonParser

SOURCE = b'''"""Module doc."""
import os.path
import numpy as np
from . import sibling
from ..pkg.mod import (helper as h, other)
from .star import *

LIMIT = 10
name_map = {}
__all__ = ["Outer", "LIMIT"]


class Outer(Base, mod.Mixin, metaclass=Meta):
    """Outer doc."""

    attr: int = 3

    def method(self, x: "Widget", *args, y=LIMIT, **kw) -> None:
        """Method doc."""
        self.helper_call(x)
        super().method(x)
        os.path.join("a", "b")
        h(key=x)

        def nested(z):
            nonlocal x
            return z + x

        return nested

    @property
    def prop(self):
        return self.attr


def top(a, b=sibling.DEFAULT):
    global LIMIT
    for i, (j, k) in enumerate(a):
        pass
    with open(a) as fh:
        pass
    import json as js
    return js.dumps(np.array(b)), [q for q in a], (w := 2), fh, i, j, k


if __name__ == "__main__":
    demo = top(1)
'''


@pytest.fixture(scope="module")
def parsed() -> ParsedFile:
    return PythonParser().parse(SOURCE, content_hash(SOURCE))


def by_qualname(p: ParsedFile) -> dict[str, int]:
    return {d.qualname: i for i, d in enumerate(p.definitions)}


def test_definitions_kinds_scopes_docstrings(parsed: ParsedFile) -> None:
    defs = by_qualname(parsed)
    kinds = {q: parsed.definitions[i].kind for q, i in defs.items()}
    assert kinds["Outer"] == "class"
    assert kinds["Outer.method"] == "method"
    assert kinds["Outer.method.nested"] == "function"
    assert kinds["Outer.prop"] == "method"
    assert kinds["Outer.attr"] == "attribute"
    assert kinds["top"] == "function"
    assert kinds["LIMIT"] == "constant"
    assert kinds["name_map"] == "variable"
    assert "demo" not in defs  # demo code under the __main__ guard defines nothing importable
    outer = parsed.definitions[defs["Outer"]]
    assert outer.bases == ("Base", "mod.Mixin")
    assert parsed.definitions[defs["Outer.method"]].parent == defs["Outer"]
    assert parsed.definitions[defs["Outer.method.nested"]].parent == defs["Outer.method"]
    doc = SOURCE[outer.doc_start : outer.doc_end]
    assert doc == b'"""Outer doc."""'
    header = SOURCE[outer.start_byte : outer.header_end]
    assert header == b"class Outer(Base, mod.Mixin, metaclass=Meta):"
    prop = parsed.definitions[defs["Outer.prop"]]
    assert SOURCE[prop.start_byte : prop.header_end].startswith(b"@property")
    assert parsed.dunder_all == ("Outer", "LIMIT")
    assert not parsed.has_errors


def test_imports_absolute_relative_aliased_star(parsed: ParsedFile) -> None:
    rows = {(b.local, b.module, b.level, b.name, b.binds_top, b.star) for b in parsed.imports}
    assert ("os", "os.path", 0, None, True, False) in rows
    assert ("np", "numpy", 0, None, False, False) in rows
    assert ("sibling", "", 1, "sibling", False, False) in rows
    assert ("h", "pkg.mod", 2, "helper", False, False) in rows
    assert ("other", "pkg.mod", 2, "other", False, False) in rows
    assert ("*", "star", 1, "*", False, True) in rows
    js = next(b for b in parsed.imports if b.local == "js")
    assert js.scope == by_qualname(parsed)["top"]  # a function-level import binds in that function


def test_references_chains_calls_and_non_loads(parsed: ParsedFile) -> None:
    method = by_qualname(parsed)["Outer.method"]
    chains = {(r.chain, r.is_call) for r in parsed.references if r.scope == method}
    assert (("self", "helper_call"), True) in chains
    assert (("super()", "method"), True) in chains
    assert (("os", "path", "join"), True) in chains
    assert (("h",), True) in chains
    loads = {r.chain[0] for r in parsed.references}
    assert "key" not in loads  # keyword argument names are not loads
    assert "helper_call" not in loads  # attribute names only appear inside chains
    # string annotations and parameter defaults are references (in the enclosing scope for defaults)
    assert any(r.chain == ("Widget",) for r in parsed.references)
    default = next(r for r in parsed.references if r.chain == ("LIMIT",) and r.line == 18)
    assert default.scope == by_qualname(parsed)["Outer"]


def test_scopes_bind_parameters_targets_and_declarations(parsed: ParsedFile) -> None:
    defs = by_qualname(parsed)
    method = parsed.scopes[defs["Outer.method"]]
    assert {"self", "x", "args", "y", "kw", "nested"} <= method.bound
    assert method.first_param == "self"
    assert "x" in parsed.scopes[defs["Outer.method.nested"]].nonlocals
    top = parsed.scopes[defs["top"]]
    assert {"a", "b", "i", "j", "k", "fh", "js", "q", "w"} <= top.bound
    assert "LIMIT" in top.globals
    assert {"LIMIT", "name_map", "__all__"} <= parsed.module_bound


def test_syntax_error_keeps_the_rest() -> None:
    parsed = PythonParser().parse(BROKEN.encode())
    names = {d.qualname for d in parsed.definitions}
    assert parsed.has_errors
    assert {"before_error", "AfterError", "AfterError.still_here", "last_one"} <= names


def test_non_utf8_and_empty_and_garbage() -> None:
    parser = PythonParser()
    latin = parser.parse(LATIN1.encode("latin-1"))
    assert {d.kind for d in latin.definitions} == {"function", "constant"}
    assert any(d.name == "PRICE" for d in latin.definitions)
    empty = parser.parse(b"")
    assert empty.definitions == () and empty.references == () and not empty.has_errors
    garbage = parser.parse(bytes(range(256)) * 4)
    assert isinstance(garbage, ParsedFile)


def test_module_scope_constant(parsed: ParsedFile) -> None:
    limit = parsed.definitions[by_qualname(parsed)["LIMIT"]]
    assert limit.parent == MODULE_SCOPE
    assert SOURCE[limit.start_byte : limit.end_byte] == b"LIMIT = 10"


def test_cache_roundtrip(tmp_path, parsed: ParsedFile) -> None:
    cache = ParseCache(tmp_path)
    cache.put_many([parsed])
    cache.close()
    again = ParseCache(tmp_path).get_many([parsed.content_hash, "missing"])
    assert list(again) == [parsed.content_hash]
    assert again[parsed.content_hash] == parsed


def test_unusable_cache_dir_degrades(tmp_path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a directory")
    cache = ParseCache(blocker / "sub")
    assert not cache.enabled
    assert cache.get_many(["x"]) == {}
    cache.put_many([])


def test_rule_is_pessimistic_by_construction_and_estimate_is_it_scaled() -> None:
    from codegym.context.tokens import estimate_tokens, rule_tokens

    assert rule_tokens("") == estimate_tokens("") == 0
    assert rule_tokens("x") == estimate_tokens("x") == 1
    assert rule_tokens(" word") == rule_tokens("word") == 1  # a leading space merges
    assert rule_tokens("café") == 1 + 2  # "caf", then é as its two UTF-8 bytes
    assert rule_tokens("HTTP_ERROR") > rule_tokens("http_error")  # capitals split finely
    assert rule_tokens("x = 12345\n") == 1 + 1 + 5 + 1  # one per digit; single spaces are free
    text = "def handler(request: Request, *, timeout: float = 3.0) -> Response: ...\n" * 20
    assert estimate_tokens(text) == -(-rule_tokens(text) * 5 // 7)  # the calibrated 5/7, rounded up


def test_string_annotations_nested_in_subscripts_are_references() -> None:
    from codegym.context.parser import PythonParser

    src = (
        b"import typing as t\n"
        b'def f(x: t.Optional["A"], y: t.Sequence[t.Union[str, t.Type["Ext"]]]) -> t.Dict[str, "B"]:\n'
        b'    z: "C" | None = None\n'
    )
    chains = {r.chain for r in PythonParser().parse(src).references}
    assert {("A",), ("Ext",), ("B",), ("C",)} <= chains
