"""Tests compiled on the host and kept between runs (codegym/sandbox/precompile.py)."""

from __future__ import annotations

import json
import os
import stat
from pathlib import Path

import pytest

from codegym.sandbox import precompile
from codegym.sandbox.inside import testprep
from codegym.sandbox.local import TESTS_DIR, LocalBackend
from codegym.sandbox.precompile import HostTestCompiler, default_store_dir, store_dir_for
from codegym.sandbox.types import ExecRequest, ExecStatus

ADD = "def add(a, b):\n    return a + b\n"
TESTS = "from solution import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"


def request(tests: str = TESTS, runner: str = "auto") -> ExecRequest:
    return ExecRequest(files={"solution.py": ADD}, tests={"test_hidden.py": tests}, test_runner=runner)


@pytest.fixture
def compiles(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The test sets compiled from source (the store's misses)."""
    calls: list[str] = []
    real = testprep.prepare

    def counting(tests, choice, tests_dir):
        calls.append(tests["test_hidden.py"])
        return real(tests, choice, tests_dir)

    monkeypatch.setattr(testprep, "prepare", counting)
    return calls


def entries(store: Path) -> list[Path]:
    return sorted(store.glob("*.json"))


def test_a_test_set_compiled_once_is_loaded_by_the_next_run(tmp_path: Path, compiles: list[str]) -> None:
    first = HostTestCompiler(TESTS_DIR, store_dir=tmp_path).wire_for(request())
    assert compiles == [TESTS]
    [entry] = entries(tmp_path)
    assert entry.name == f"{first['key']}.json"
    assert stat.S_IMODE(entry.stat().st_mode) == 0o600
    assert not list(tmp_path.glob(".*"))  # no temporary file left behind
    second = HostTestCompiler(TESTS_DIR, store_dir=tmp_path).wire_for(request())
    assert compiles == [TESTS]  # the new process (a new compiler) compiled nothing
    assert second == first
    prepared = testprep.from_wire(second, TESTS_DIR)
    assert prepared is not None and prepared.compiled[0][3].co_filename == f"{TESTS_DIR}/test_hidden.py"


def test_without_a_store_nothing_is_written(tmp_path: Path, compiles: list[str]) -> None:
    HostTestCompiler(TESTS_DIR).wire_for(request())
    HostTestCompiler(TESTS_DIR).wire_for(request())
    assert len(compiles) == 2 and entries(tmp_path) == []


@pytest.mark.parametrize(
    "damage",
    [
        lambda text: text[: len(text) // 2],  # cut short
        lambda text: "",
        lambda text: "[1, 2]",
        lambda text: text.replace('"runner": "fast"', '"runner": "pytest"'),  # fails its checksum
    ],
    ids=["truncated", "empty", "not-an-entry", "altered"],
)
def test_a_damaged_entry_is_compiled_again_and_replaced(tmp_path: Path, compiles: list[str], damage) -> None:
    original = HostTestCompiler(TESTS_DIR, store_dir=tmp_path).wire_for(request())
    [entry] = entries(tmp_path)
    intact = entry.read_text()
    assert '"runner": "fast"' in intact
    entry.write_text(damage(intact))
    again = HostTestCompiler(TESTS_DIR, store_dir=tmp_path).wire_for(request())
    assert len(compiles) == 2 and again == original
    assert json.loads(entry.read_text()) == json.loads(intact)


def test_an_entry_for_another_key_is_not_used(tmp_path: Path, compiles: list[str]) -> None:
    """A file renamed to another test set's name (its content names its own key) is compiled over."""
    wrong = HostTestCompiler(TESTS_DIR, store_dir=tmp_path).wire_for(request())
    other_key = HostTestCompiler(TESTS_DIR)._digest(("auto", (("test_hidden.py", TESTS + "\n"),)))
    (tmp_path / f"{wrong['key']}.json").rename(tmp_path / f"{other_key}.json")
    wire = HostTestCompiler(TESTS_DIR, store_dir=tmp_path).wire_for(request(TESTS + "\n"))
    assert wire["key"] == other_key and len(compiles) == 2


def test_the_key_covers_everything_the_bytecode_depends_on(monkeypatch: pytest.MonkeyPatch) -> None:
    def key(tests_dir: str = TESTS_DIR, tests: str = TESTS, runner: str = "auto") -> str:
        return HostTestCompiler(tests_dir)._digest((runner, (("test_hidden.py", tests),)))

    base = key()
    assert key() == base
    assert len({base, key(tests_dir="/elsewhere/tests"), key(tests=TESTS + "\n"), key(runner="fast")}) == 4
    monkeypatch.setattr(precompile.importlib.util, "MAGIC_NUMBER", b"\x00\x00\r\n")
    assert key() != base  # another Python's bytecode
    monkeypatch.undo()
    monkeypatch.setattr(precompile, "_rewriter_fingerprint", lambda: "another rewrite")
    assert key() != base  # the tests are rewritten differently


@pytest.mark.parametrize("exposure", ["writable by others", "another user's"])
def test_a_store_others_could_write_to_is_not_used(
    tmp_path: Path, compiles: list[str], exposure: str
) -> None:
    """Its files would choose the code the harness runs: such a store is neither read nor written."""
    trusted = tmp_path / "trusted"
    HostTestCompiler(TESTS_DIR, store_dir=trusted).wire_for(request())
    store = tmp_path / "store"
    store.mkdir()
    for entry in entries(trusted):  # a valid entry is already there: only the check keeps it out
        entry.rename(store / entry.name)
    if exposure == "writable by others":
        store.chmod(0o777)
    elif os.getuid() == 0:
        os.chown(store, 4321, 4321)
    else:
        pytest.skip("giving a directory to another user needs root")
    HostTestCompiler(TESTS_DIR, store_dir=store).wire_for(request())
    HostTestCompiler(TESTS_DIR, store_dir=store).wire_for(request(TESTS + "\n"))
    assert compiles == [TESTS, TESTS, TESTS + "\n"]
    assert len(entries(store)) == 1  # nothing written there either


def test_an_unwritable_store_costs_only_the_compile(tmp_path: Path, compiles: list[str]) -> None:
    blocker = tmp_path / "a-file"
    blocker.write_text("not a directory")
    store = blocker / "store"
    wire = HostTestCompiler(TESTS_DIR, store_dir=store).wire_for(request())
    assert testprep.from_wire(wire, TESTS_DIR) is not None and compiles == [TESTS]
    assert blocker.read_text() == "not a directory"


def test_the_store_setting() -> None:
    assert store_dir_for("off") is None
    assert store_dir_for("default") == default_store_dir() == Path.home() / ".cache/codegym/prepared-tests"
    assert store_dir_for("~/tests-store") == Path.home() / "tests-store"
    assert store_dir_for("/srv/store") == Path("/srv/store")


def test_a_pool_runs_tests_from_the_store(tmp_path: Path, compiles: list[str]) -> None:
    """End to end: what a first backend stored, a second one's workers run (no compile on its host),
    with the verdicts the tests give."""
    failing = ExecRequest(files={"solution.py": "def add(a, b):\n    return a - b\n"}, tests=request().tests)
    with LocalBackend(workers=1, compiled_tests_dir=str(tmp_path)) as backend:
        assert backend.execute(request()).status is ExecStatus.PASSED
    assert len(entries(tmp_path)) == 1 and len(compiles) == 1
    with LocalBackend(workers=1, compiled_tests_dir=str(tmp_path)) as backend:
        assert backend.execute(request()).status is ExecStatus.PASSED
        result = backend.execute(failing)
    assert result.status is ExecStatus.FAILED and "-1 != 5" in result.tests[0].message
    assert len(compiles) == 1
