"""The hostile programs both sandbox backends are tried with (tests/sandbox/test_hostile.py and
test_docker_hostile.py), each with its expected verdict, and the host-side checks after each."""

from __future__ import annotations

import socket
import subprocess
import uuid
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from codegym.sandbox.types import ExecResult, ExecStatus, Limits

TESTS = "from solution import answer\n\n\ndef test_answer():\n    assert answer() == 42\n"


BENIGN = "def answer():\n    return 42\n"


MARKER = f"codegym-hostile-{uuid.uuid4().hex[:8]}"


SECRET = f"secret-{uuid.uuid4().hex}"


LIMITS = Limits(
    timeout_s=3.0, memory_mb=256, max_processes=16, max_output_bytes=200_000, max_file_bytes=8 * 1024 * 1024
)


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
