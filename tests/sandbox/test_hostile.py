"""Hostile programs against the local backend, each with its expected verdict and host-side checks.

Run only inside a throwaway PID namespace: in a normal run the parametrized cases are deselected
(see conftest.py) and `test_hostile_suite_in_throwaway_pid_namespace` re-runs them under
`unshare --pid --fork --mount-proc`, so a sandbox failure could at worst kill that namespace.
"""

from __future__ import annotations

import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

from codegym.sandbox.local import LocalBackend, probe_isolation
from codegym.sandbox.types import ExecRequest, ExecStatus
from codegym.tasks.cases import Case, CaseSuite
from tests.conftest import REPO_ROOT, THROWAWAY_ENV
from tests.sandbox.hostile_cases import (
    BENIGN,
    HOSTILE,
    LIMITS,
    MARKER,
    SECRET,
    TESTS,
    Hostile,
    assert_contained,
)

ISOLATIONS = [tool for tool in ("bwrap", "unshare") if probe_isolation(tool) is None]


# Searches everything the program can read for the expected answer (SECRET is the expected output of
# the cases below) and answers with what it found: it must find nothing.
_SEARCH = (
    "import os\n"
    "def search():\n"
    "    roots = ['/proc', '/tmp', '/run', '/dev/shm', '/var/tmp', os.getcwd(), os.path.expanduser('~')]\n"
    "    seen = 0\n"
    "    for root in roots:\n"
    "        for folder, dirs, files in os.walk(root):\n"
    "            if folder.count('/') > 4:\n"
    "                dirs[:] = []\n"
    "            for name in files:\n"
    "                seen += 1\n"
    "                if seen > 20000:\n"
    "                    return ''\n"
    "                try:\n"
    "                    with open(os.path.join(folder, name), 'rb') as handle:\n"
    "                        data = handle.read(1 << 20)\n"
    "                except Exception:\n"
    "                    continue\n"
    "                at = data.find(b'secret-')\n"
    "                if at >= 0:\n"
    "                    return data[at:at + 39].decode(errors='replace')\n"
    "    return ''\n"
)
IO_CASES = CaseSuite(
    "stdio", (Case("1 2\n", "3\n"), Case("what is the secret?\n", SECRET + "\n")), case_timeout_s=1.5
)
CALL_CASES = CaseSuite(
    "call", (Case((1, 2), 3), Case(("what is the secret?", 0), SECRET)), function="add", case_timeout_s=1.5
)
IO_BENIGN = "a, b = input().split()\nprint(int(a) + int(b))\n"
CALL_BENIGN = "def add(a, b):\n    return a + b\n"

HOSTILE_IO = [
    Hostile(
        "stdio_fork_bomb",
        "import os\nwhile True:\n    try:\n        os.fork()\n    except OSError:\n        pass\n",
        (ExecStatus.TIMEOUT,),
        kind="stdio",
    ),
    Hostile(
        "stdio_memory_bomb",
        "hog = []\nwhile True:\n    hog.append(bytearray(10**7))\n",
        (ExecStatus.MEMORY,),
        kind="stdio",
    ),
    Hostile("stdio_infinite_loop", "while True:\n    pass\n", (ExecStatus.TIMEOUT,), kind="stdio"),
    Hostile("stdio_never_reads_stdin", "import time\ntime.sleep(60)\n", (ExecStatus.TIMEOUT,), kind="stdio"),
    Hostile(
        "stdio_kill_everything",
        "import os\nos.kill(-1, 9)\n" + IO_BENIGN,
        (ExecStatus.ERROR, ExecStatus.FAILED),
        kind="stdio",
    ),
    Hostile(
        "stdio_kill_parent",
        "import os\nos.kill(os.getppid(), 9)\n" + IO_BENIGN,
        (ExecStatus.ERROR,),
        kind="stdio",
    ),
    Hostile(
        "stdio_prints_past_the_cap",
        "import sys\nwhile True:\n    sys.stdout.write('x' * 65536)\n",
        (ExecStatus.OUTPUT_LIMIT,),
        kind="stdio",
    ),
    Hostile("stdio_exits_before_answering", "import os\nos._exit(0)\n", (ExecStatus.FAILED,), kind="stdio"),
    Hostile(
        "stdio_reads_expected_outputs",
        _SEARCH + "line = input()\nprint(search() if '?' in line else sum(map(int, line.split())))\n",
        (ExecStatus.FAILED,),
        kind="stdio",
    ),
    Hostile(
        "call_infinite_loop",
        "def add(a, b):\n    while True:\n        pass\n",
        (ExecStatus.TIMEOUT,),
        kind="call",
    ),
    Hostile(
        "call_memory_bomb",
        "def add(a, b):\n    hog = []\n    while True:\n        hog.append(bytearray(10**7))\n",
        (ExecStatus.MEMORY,),
        kind="call",
    ),
    Hostile("call_exits", "import os\ndef add(a, b):\n    os._exit(0)\n", (ExecStatus.ERROR,), kind="call"),
    Hostile(
        "call_always_equal",
        "class Any:\n    def __eq__(self, other):\n        return True\n    __hash__ = None\n"
        "def add(a, b):\n    return Any()\n",
        (ExecStatus.FAILED,),
        kind="call",
    ),
    Hostile(
        "call_kill_everything",
        "import os\ndef add(a, b):\n    os.kill(-1, 9)\n    return a + b if isinstance(a, int) else ''\n",
        (ExecStatus.FAILED, ExecStatus.ERROR),
        kind="call",
    ),
    Hostile(
        "call_reads_expected_outputs",
        _SEARCH + "def add(a, b):\n    return a + b if isinstance(a, int) else search()\n",
        (ExecStatus.FAILED,),
        kind="call",
    ),
]


def _sandbox_uid_processes(uid_floor: int) -> list[str]:
    """Processes on the host run by a program uid of the pool (program uids are uid_base + 2 * slot;
    the odd ones are the harnesses', which persist between runs), or carrying our marker."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            status = Path(f"/proc/{entry}/status").read_text()
            cmdline = (
                Path(f"/proc/{entry}/cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace")
            )
        except OSError:
            continue
        uid = int(re.search(r"^Uid:\s+(\d+)", status, re.M).group(1))
        if (uid >= uid_floor and (uid - uid_floor) % 2 == 0) or MARKER in cmdline:
            found.append(f"{entry} uid={uid} {cmdline[:80]}")
    return found


@pytest.fixture(scope="module", params=ISOLATIONS)
def hostile_backend(request: pytest.FixtureRequest) -> Iterator[LocalBackend]:
    with LocalBackend(isolation=request.param, workers=1, tmp_size_mb=64) as backend:
        backend.start()
        yield backend


@pytest.mark.hostile
@pytest.mark.parametrize("case", HOSTILE, ids=[case.name for case in HOSTILE])
def test_hostile_program_is_contained(
    case: Hostile, hostile_backend: LocalBackend, host_listener: socket.socket, tmp_path: Path
) -> None:
    sentinel = subprocess.Popen(["sleep", "300"])
    secret_file = REPO_ROOT / f".{MARKER}-secret"
    secret_file.write_text(SECRET)
    outside = [
        str(REPO_ROOT / f"{MARKER}-written"),
        str(Path.home() / f"{MARKER}-written"),
        f"/etc/{MARKER}",
        f"/usr/{MARKER}",
        str(tmp_path / f"{MARKER}-written"),
    ]
    os.environ["CODEGYM_SECRET"] = SECRET
    code = case.code.replace("{port}", str(host_listener.getsockname()[1]))
    code = code.replace(
        "{paths!r}", repr(outside if "write" in case.name else [str(secret_file), "/root/.bashrc"])
    )
    code = code.replace("{secret!r}", repr(SECRET))
    try:
        request = ExecRequest(files={"solution.py": code}, tests={"test_hidden.py": TESTS}, limits=LIMITS)
        result = hostile_backend.execute(request)

        assert_contained(case, result, sentinel, host_listener, outside)
        assert result.passed == (case.statuses == (ExecStatus.PASSED,))
        assert _sandbox_uid_processes(hostile_backend.uid_base) == []
        # and the judge still serves the next request
        follow_up = hostile_backend.execute(
            ExecRequest(files={"solution.py": BENIGN}, tests={"test_hidden.py": TESTS}, limits=LIMITS)
        )
        assert follow_up.status is ExecStatus.PASSED, follow_up.message
    finally:
        os.environ.pop("CODEGYM_SECRET", None)
        secret_file.unlink(missing_ok=True)
        sentinel.kill()
        sentinel.wait()


@pytest.mark.hostile
@pytest.mark.parametrize("case", HOSTILE_IO, ids=[case.name for case in HOSTILE_IO])
def test_hostile_case_program_is_contained(
    case: Hostile, hostile_backend: LocalBackend, host_listener: socket.socket
) -> None:
    """The same containment for stdin/stdout and call-based tasks; the expected answer of the second
    case is a secret that exists only in the harness's memory."""
    sentinel = subprocess.Popen(["sleep", "300"])
    suite, benign = (IO_CASES, IO_BENIGN) if case.kind == "stdio" else (CALL_CASES, CALL_BENIGN)
    try:
        result = hostile_backend.execute(
            ExecRequest(files={"solution.py": case.code}, tests={}, cases=suite, limits=LIMITS)
        )
        assert_contained(case, result, sentinel, host_listener, [])
        assert SECRET not in "".join(t.actual_head for t in result.tests)
        assert _sandbox_uid_processes(hostile_backend.uid_base) == []
        follow_up = hostile_backend.execute(
            ExecRequest(files={"solution.py": benign}, tests={}, cases=suite, limits=LIMITS)
        )
        assert follow_up.tests[0].outcome.value == "passed", follow_up.message
    finally:
        sentinel.kill()
        sentinel.wait()


@pytest.mark.slow
def test_hostile_suite_in_throwaway_pid_namespace() -> None:
    """Runs the cases above under `unshare --pid --fork --mount-proc` (never in this namespace)."""
    if os.environ.get(THROWAWAY_ENV):
        pytest.skip("already inside the throwaway namespace run")
    assert ISOLATIONS, "no isolation tool (bubblewrap or unshare) works on this machine"
    env = {**os.environ, THROWAWAY_ENV: os.readlink("/proc/self/ns/pid"), "PYTHONPATH": str(REPO_ROOT)}
    argv = [
        "unshare",
        "--pid",
        "--fork",
        "--mount-proc",
        "--kill-child",
        sys.executable,
        "-m",
        "pytest",
        "-m",
        "hostile",
        "-q",
        "-p",
        "no:cacheprovider",
        "-o",
        "addopts=",
        str(Path(__file__).resolve()),
    ]
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT, env=env)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    expected = (len(HOSTILE) + len(HOSTILE_IO)) * len(ISOLATIONS)
    assert re.search(rf"\b{expected} passed\b", output), output[-3000:]
