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
import uuid
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codegym.sandbox.local import LocalBackend, probe_isolation
from codegym.sandbox.types import ExecRequest, ExecResult, ExecStatus, Limits
from codegym.tasks.cases import Case, CaseSuite
from tests.conftest import REPO_ROOT, THROWAWAY_ENV

TESTS = "from solution import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"
BENIGN = "def answer():\n    return 42\n"
MARKER = f"codegym-hostile-{uuid.uuid4().hex[:8]}"
SECRET = f"secret-{uuid.uuid4().hex}"
LIMITS = Limits(
    timeout_s=3.0, memory_mb=256, max_processes=16, max_output_bytes=200_000, max_file_bytes=8 * 1024 * 1024
)
ISOLATIONS = [tool for tool in ("bwrap", "unshare") if probe_isolation(tool) is None]


@dataclass(frozen=True)
class Hostile:
    name: str
    code: str
    statuses: tuple[ExecStatus, ...]
    flags: tuple[str, ...] = ()
    env: dict[str, str] = field(default_factory=dict)
    kind: str = "tests"  # or `stdio` / `call`: judged by input/output cases (HOSTILE_IO)


HOSTILE = [
    Hostile(
        "fork_bomb",
        "import os\ndef answer():\n    while True:\n        try:\n            os.fork()\n"
        "        except OSError:\n            pass\n",
        (ExecStatus.TIMEOUT,),
    ),
    Hostile(
        "memory_bomb",
        "def answer():\n    hog = []\n    while True:\n        hog.append(bytearray(10**7))\n",
        (ExecStatus.MEMORY,),
    ),
    Hostile("infinite_loop", "def answer():\n    while True:\n        pass\n", (ExecStatus.TIMEOUT,)),
    Hostile(
        "sigterm_ignoring_loop",
        "import signal\nsignal.signal(signal.SIGTERM, signal.SIG_IGN)\n"
        "def answer():\n    while True:\n        pass\n",
        (ExecStatus.TIMEOUT,),
    ),
    Hostile(
        "thread_spinner",
        "import threading\ndef spin():\n    while True:\n        pass\n"
        "def answer():\n    for _ in range(4):\n        threading.Thread(target=spin).start()\n"
        "    spin()\n",
        (ExecStatus.TIMEOUT,),
    ),
    Hostile(
        # it may signal only its own uid's processes: the harness survives, and 42 is the right answer
        "kill_everything",
        "import os\ndef answer():\n    os.kill(-1, 9)\n    return 42\n",
        (ExecStatus.PASSED,),
    ),
    Hostile(
        "kill_parent",
        "import os, signal\ndef answer():\n    for sig in (9, 15):\n        try:\n"
        "            os.kill(os.getppid(), sig)\n        except OSError:\n            pass\n"
        "    os.kill(1, 9) if os.getpid() != 1 else None\n    return 41\n",
        (ExecStatus.FAILED, ExecStatus.ERROR),
    ),
    Hostile(
        "orphaned_background_process",
        "import os, time\ndef answer():\n    if os.fork() == 0:\n"
        "        os.setsid()\n        if os.fork() == 0:\n"
        f"            os.execvp('sleep', ['sleep', '600', '{MARKER}'])\n        os._exit(0)\n    return 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "network_to_host_loopback",
        "import os, socket\ndef answer():\n"
        "    s = socket.create_connection(('127.0.0.1', {port}), timeout=1)\n"
        "    s.sendall(b'escaped')\n    return 42\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "write_outside_scratch",
        "import os\ndef answer():\n    written = 0\n"
        "    for path in {paths!r}:\n        try:\n            with open(path, 'w') as f:\n"
        "                f.write('x')\n            written += 1\n        except OSError:\n            pass\n"
        "    return 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "read_host_file_and_env",
        "import os\ndef answer():\n    found = os.environ.get('CODEGYM_SECRET')\n"
        "    for path in {paths!r}:\n        try:\n            found = open(path).read()\n"
        "        except OSError:\n            pass\n    return 42 if found == {secret!r} else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "two_gb_of_stdout",
        "import sys\ndef answer():\n    chunk = 'x' * (1 << 20)\n"
        "    for _ in range(2048):\n        sys.stdout.write(chunk)\n    return 42\n",
        (ExecStatus.OUTPUT_LIMIT,),
    ),
    Hostile(
        "fill_the_disk",
        "import os\ndef answer():\n    n = 0\n    while True:\n"
        "        with open('fill-%d' % n, 'wb') as f:\n"
        "            f.write(b'\\0' * (4 << 20))\n        n += 1\n",
        (ExecStatus.FAILED, ExecStatus.ERROR),
    ),
    Hostile(
        "segfault_via_ctypes",
        "import ctypes\ndef answer():\n    return ctypes.string_at(0)\n",
        (ExecStatus.ERROR,),
    ),
    Hostile(
        "deep_recursion",
        "import sys\nsys.setrecursionlimit(10**7)\ndef f(n):\n    return f(n + 1) + 1\n"
        "def answer():\n    return f(0)\n",
        (ExecStatus.ERROR, ExecStatus.FAILED, ExecStatus.MEMORY, ExecStatus.TIMEOUT),
    ),
    Hostile(
        "sys_exit_at_import", "import sys\nsys.exit(0)\ndef answer():\n    return 42\n", (ExecStatus.ERROR,)
    ),
    Hostile(
        "os_exit_in_call", "import os\ndef answer():\n    os._exit(0)\n", (ExecStatus.ERROR,), ("early_exit",)
    ),
    Hostile(
        "system_exit_in_call",
        "def answer():\n    raise SystemExit(0)\n",
        (ExecStatus.FAILED,),
        ("exit_in_test",),
    ),
    Hostile(
        "atexit_trick",
        "import atexit, os\natexit.register(lambda: os._exit(0))\ndef answer():\n    raise SystemExit(0)\n",
        (ExecStatus.FAILED, ExecStatus.ERROR),
    ),
    Hostile(
        "excepthook_trick",
        "import os, sys\nsys.excepthook = lambda *a: os._exit(0)\n"
        "def answer():\n    raise RuntimeError('boom')\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "stdout_forging",
        "import sys\ndef answer():\n    print('===== 1 passed in 0.01s =====')\n"
        '    print(\'{"status": "passed", "tests_passed": 1}\')\n    sys.stdout.flush()\n    return 41\n',
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "verdict_channel_forging",
        "import os, json\ndef answer():\n    for fd in range(3, 64):\n        try:\n"
        "            for kind in ('begin', 'result', 'tests_done', 'end'):\n"
        "                os.write(fd, (json.dumps({'t': 'x', 'k': kind,"
        " 'tests': ['test_hidden.py::test_answer'], 'id': 'test_hidden.py::test_answer',"
        " 'outcome': 'passed'}) + '\\n').encode())\n"
        "        except OSError:\n            pass\n    os._exit(0)\n",
        (ExecStatus.ERROR,),
        ("protocol_violation",),
    ),
    Hostile(
        "eq_always_true",
        "class AlwaysEqual:\n    def __eq__(self, other):\n        return True\n"
        "    def __ne__(self, other):\n        return False\n    __hash__ = object.__hash__\n"
        "def answer():\n    return AlwaysEqual()\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "int_subclass_eq",
        "class Int(int):\n    def __eq__(self, other):\n        return True\n"
        "    __hash__ = int.__hash__\n"
        "def answer():\n    return Int(7)\n",
        (ExecStatus.FAILED,),
    ),
]


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


def assert_contained(
    case: Hostile,
    result: ExecResult,
    sentinel: subprocess.Popen[bytes],
    host_listener: socket.socket,
    outside: list[str],
) -> None:
    """The verdict the case expects, and the host untouched: the sentinel process alive, no
    connection to the host listener, nothing written outside, output capped."""
    assert result.status in case.statuses, (result.status, result.message, result.stderr[-500:])
    for flag in case.flags:
        assert flag in result.flags, (flag, result.flags)
    assert sentinel.poll() is None, "a host process was killed"
    with pytest.raises(BlockingIOError):
        host_listener.accept()
    for path in outside:
        assert not Path(path).exists(), f"the program wrote {path} on the host"
    assert len(result.stdout) < 64 * 1024


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
