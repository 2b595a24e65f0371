"""What the docker test modules share: the engine (started with scripts/ensure_docker.sh when it is
down) and the sandbox image (built when missing, exactly as `codegym sandbox build` does); and
programs both backends' tests run."""

from __future__ import annotations

import functools
import os
import subprocess

import pytest

from codegym.sandbox.backend import SandboxUnavailable
from codegym.sandbox.docker import Engine, build_image
from tests.conftest import REPO_ROOT, in_throwaway_pid_namespace

SKIP_ENV = "CODEGYM_SKIP_DOCKER"


def docker_engine() -> Engine:
    """A reachable engine, started if needed; fails (never skips) unless CODEGYM_SKIP_DOCKER=1."""
    if os.environ.get(SKIP_ENV) == "1":
        pytest.skip(f"{SKIP_ENV}=1: docker backend tests skipped on request")
    try:
        return Engine()
    except SandboxUnavailable as first:
        # Never start dockerd from the throwaway namespace: it would die with it.
        if os.geteuid() != 0 or in_throwaway_pid_namespace():
            pytest.fail(f"Docker is required and unreachable: {first} (or set {SKIP_ENV}=1)")
        completed = subprocess.run(
            [str(REPO_ROOT / "scripts" / "ensure_docker.sh")], capture_output=True, text=True, timeout=600
        )
        try:
            return Engine()
        except SandboxUnavailable as exc:
            pytest.fail(
                f"Docker is required and could not be started: {exc}\n{completed.stdout}{completed.stderr}"
                f"\n(set {SKIP_ENV}=1 to skip the docker tests explicitly)"
            )


@functools.cache
def sandbox_image() -> str:
    """The backend's image, built (idempotently, offline if need be) like `codegym sandbox build`."""
    engine = docker_engine()
    try:
        return build_image(engine, progress=print).reference
    finally:
        engine.close()


ADD_TESTS = "from solution import add\n\ndef test_add():\n    assert add(2, 3) == 5\n"


# a program that names every coverage.py module it can see (a coverage pool must show none)
COVERAGE_PACKAGE_UNSEEN = (
    "import sys\n\n\ndef loaded():\n"
    "    return sorted(n for n in sys.modules if n == 'coverage' or n.startswith('coverage.'))\n"
)
COVERAGE_PACKAGE_TESTS = "from solution import loaded\n\ndef test_none():\n    assert loaded() == []\n"


# Counts its own imports in this process (in builtins: it outlives a module object) and writes through
# a copy of the standard output it kept at its first import. `touch` answers the same at every
# import (a coverage pass serves the verdict pass's requests again only while each answer is the
# same); which of `first_import`'s lines ran shows the import it served.
IMPORTS_COUNTED = (
    "import builtins\nimport os\n\nseen = builtins.__dict__.setdefault('imports_seen', [])\n"
    "seen.append(os.dup(1))\nprint('imported')\n\n\ndef first_import():\n"
    "    if len(seen) == 1:\n        return 'first'\n    return 'again'\n\n\ndef touch():\n    try:\n"
    "        os.write(seen[0], b'called\\n')\n    except OSError:\n        pass\n"
    "    first_import()\n    return 'touched'\n"
)
IMPORTS_COUNTED_TESTS = "from solution import touch\n\ndef test_it():\n    assert touch() == 'touched'\n"


def line_of(source: str, text: str) -> int:
    return next(number for number, line in enumerate(source.splitlines(), 1) if text in line)
