"""The harness's coverage analysis (`coverage_probe.analyse`: statements, branch arcs, the multi-line
map, the `with`-exit fixes) reads its tokens from 3.11's C tokenizer instead of the tokenize module;
what it finds must not change, and coverage.py itself is left as it was."""

from __future__ import annotations

import importlib.util

import pytest

from tests.conftest import REPO_ROOT

# a sandbox-side module (stdlib imports only), loaded from its file as the harness has it
_SPEC = importlib.util.spec_from_file_location(
    "coverage_probe_under_test", REPO_ROOT / "codegym" / "sandbox" / "inside" / "coverage_probe.py"
)
coverage_probe = importlib.util.module_from_spec(_SPEC)
_SPEC.loader.exec_module(coverage_probe)

EDGE_CASES = [
    "def f(x):  # why\n    if x:\n        return 1\n    return 2\n",  # a comment on a statement's line
    'def f():\r\n    """doc\r\n    x"""\r\n    return 1\r\n',
    "x = (1 +\n     2)\\\n\n",
    "y = f'{1}' f'''{\n2\n}'''\n",
    "def g(xs):\n    return [\n        x  # c\n\n        for x in xs\n        if x\n    ]\n",
    "class A:\n    'd'; x = 1\n\n    def m(self):\n        pass\n",
    "async def f(y):\n    async with y:\n        await y\n",
    "match x:\n    case 1:\n        'a'\n    case _:\n        pass\n",
    's = \'é\'; """après"""; t = 1\n',
    "x = 'a'\\\n    'b'\nif x:\n    pass",  # no newline at the end
    "",
    "# only a comment\n",
]


def _sources() -> list[tuple[str, str]]:
    own = sorted((REPO_ROOT / "codegym").rglob("*.py"))[:120]
    return [(f"edge-{i}", code) for i, code in enumerate(EDGE_CASES)] + [
        (str(path.relative_to(REPO_ROOT)), path.read_text(encoding="utf-8")) for path in own
    ]


@pytest.mark.skipif(coverage_probe._C_TOKENS is None, reason="no C tokenizer iterator of 3.11's form")
def test_the_analysis_is_the_same_from_either_tokenizer(monkeypatch: pytest.MonkeyPatch) -> None:
    import coverage.parser

    fast = {name: coverage_probe.analyse(code, f"/x/{name}") for name, code in _sources()}
    assert coverage.parser.generate_tokens.__module__ == "coverage.phystokens"  # put back after each
    monkeypatch.setattr(coverage_probe, "_C_TOKENS", None)
    differ = [name for name, code in _sources() if coverage_probe.analyse(code, f"/x/{name}") != fast[name]]
    assert differ == []
    assert any(multiline for _, _, multiline, _ in fast.values())  # the multi-line map was exercised
