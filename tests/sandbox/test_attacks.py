"""The adversarial catalogue (tests/sandbox/attacks.py) against every backend: every wrong program
fails, every leak probe finds nothing, and the correct controls pass with no flag, before and after
the attacks ran on the same worker. The catalogue runs in a throwaway PID namespace
(`unshare --pid --fork --mount-proc`), never in the test process's own."""

from __future__ import annotations

import os
import re
import subprocess
import sys

import pytest

from codegym.sandbox.local import probe_isolation
from tests.conftest import REPO_ROOT, THROWAWAY_ENV
from tests.sandbox.attacks import ATTACKS, CATEGORIES, CONTROLS

CONFIGURATIONS = [
    pytest.param(["--backend", "local", "--isolation", tool], id=f"local-{tool}")
    for tool in ("bwrap", "unshare")
    if probe_isolation(tool) is None
] + [pytest.param(["--backend", "docker"], id="docker", marks=pytest.mark.docker)]


def test_the_catalogue_covers_every_class_of_attack() -> None:
    counts = {category: sum(a.category == category for a in ATTACKS) for category in CATEGORIES}
    assert all(counts[c] >= 3 for c in CATEGORIES if c != "controls"), counts
    assert len(CONTROLS) >= 20


@pytest.mark.slow
@pytest.mark.parametrize("arguments", CONFIGURATIONS)
def test_attack_catalogue_in_a_throwaway_pid_namespace(arguments: list[str]) -> None:
    if "docker" in arguments:
        from tests.sandbox.docker_support import sandbox_image

        sandbox_image()  # builds the image, or fails when Docker cannot run
    env = {**os.environ, THROWAWAY_ENV: os.readlink("/proc/self/ns/pid"), "PYTHONPATH": str(REPO_ROOT)}
    argv = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-m"]
    argv += ["tests.sandbox.run_attacks", *arguments]
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=1200, cwd=REPO_ROOT, env=env)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-8000:]
    assert re.search(rf"\b{len(ATTACKS)} attacks, 0 judged passed", output), output[-3000:]
    assert re.search(r"control runs, 0 BROKEN", output), output[-3000:]
