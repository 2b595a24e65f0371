"""Hostile programs and container-escape attempts against the docker backend.

The same HOSTILE cases as the local backend (tests/sandbox/test_hostile.py), plus escapes through
/proc, mounts, namespaces, the docker socket, the read-only root and the worker itself, attacks on
the harness (another uid in the same container), plus state left for the next run. Like the local suite they run only inside a throwaway PID namespace: in a
normal run they are deselected (see conftest.py) and `test_docker_hostile_suite_in_throwaway_pid_namespace`
re-runs them under `unshare --pid --fork --mount-proc`. dockerd runs outside that namespace, which is
fine: the containers are the isolation; the namespace protects the test process.
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

from codegym.sandbox.docker import DockerBackend
from codegym.sandbox.docker.config import TESTS_DIR
from codegym.sandbox.types import ExecRequest, ExecStatus
from tests.conftest import REPO_ROOT, THROWAWAY_ENV
from tests.sandbox.docker_support import docker_engine, sandbox_image
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

pytestmark = pytest.mark.docker

# Each program answers 42 when its escape worked, 41 when everything it tried was refused.
ESCAPES = [
    Hostile(
        "proc_1_root_fds_and_memory",
        "import os\ndef answer():\n    got = []\n"
        "    for path in ('/proc/1/root/etc/hostname', '/proc/1/environ', '/proc/1/mem', '/proc/1/maps'):\n"
        "        try:\n            with open(path, 'rb') as f:\n                f.read(1)\n"
        "            got.append(path)\n        except OSError:\n            pass\n"
        "    for fd in ('0', '1', '2'):\n        try:\n"
        "            with open('/proc/1/fd/' + fd, 'wb') as f:\n"
        "                f.write(b'\\x00\\x00\\x00\\x02{}')\n            got.append(fd)\n"
        "        except OSError:\n            pass\n"
        "    return 42 if got else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "proc_sys_and_cgroup_writes",
        "def answer():\n    wrote = 0\n"
        "    for path, value in (('/proc/sys/kernel/hostname', 'pwned'), ('/proc/sys/vm/drop_caches', '3'),\n"
        "                        ('/proc/sysrq-trigger', 'h'), ('/sys/fs/cgroup/pids/pids.max', 'max'),\n"
        "                        ('/sys/fs/cgroup/memory/memory.limit_in_bytes', '-1'),\n"
        "                        ('/proc/self/oom_score_adj', '-1000')):\n"
        "        try:\n            with open(path, 'w') as f:\n                f.write(value)\n"
        "            wrote += 1\n        except OSError:\n            pass\n"
        "    return 42 if wrote else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "mount_unshare_chroot_setuid",
        "import ctypes, os\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "def answer():\n    won = []\n    os.makedirs('m', exist_ok=True)\n"
        "    if libc.mount(b'tmpfs', b'm', b'tmpfs', 0, None) == 0:\n        won.append('mount')\n"
        "    if libc.mount(b'/', b'm', None, 4096 | 16384, None) == 0:\n        won.append('bind')\n"
        "    for flags in (0x10000000, 0x00020000, 0x20000000):\n"
        "        if libc.unshare(flags) == 0:\n            won.append(hex(flags))\n"
        "    if libc.chroot(b'/tmp') == 0:\n        won.append('chroot')\n"
        "    for call in (lambda: os.setuid(0), lambda: os.setgid(0), lambda: os.setgroups([0])):\n"
        "        try:\n            call()\n            won.append('id')\n        except OSError:\n            pass\n"
        "    return 42 if won or os.getuid() == 0 else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "docker_socket_and_engine_ports",
        "import socket\ndef answer():\n    reached = []\n"
        "    for path in ('/var/run/docker.sock', '/run/docker.sock', '/run/containerd/containerd.sock',\n"
        "                 '/var/run/docker/containerd/containerd.sock'):\n"
        "        s = socket.socket(socket.AF_UNIX)\n        try:\n            s.connect(path)\n"
        "            reached.append(path)\n        except OSError:\n            pass\n        finally:\n"
        "            s.close()\n"
        "    for port in (2375, 2376):\n        try:\n"
        "            socket.create_connection(('127.0.0.1', port), timeout=0.5).close()\n"
        "            reached.append(port)\n        except OSError:\n            pass\n"
        "    return 42 if reached else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "write_to_read_only_root",
        "import os\ndef answer():\n    wrote = []\n"
        "    for path in ('/pwned', '/etc/passwd', '/usr/bin/python3', '/opt/codegym/inside/worker.py',\n"
        "                 '/var/tmp/pwned', '/root/pwned', '/home/pwned'):\n"
        "        try:\n            with open(path, 'a') as f:\n                f.write('x')\n"
        "            wrote.append(path)\n        except OSError:\n            pass\n"
        "    try:\n        os.mkdir('/etc/pwned')\n        wrote.append('mkdir')\n    except OSError:\n"
        "        pass\n    return 42 if wrote else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "ptrace_the_worker",
        "import ctypes\nlibc = ctypes.CDLL(None, use_errno=True)\n"
        "def answer():\n    attached = libc.ptrace(16, 1, None, None) == 0\n"
        "    seized = libc.ptrace(0x4206, 1, None, None) == 0\n    return 42 if attached or seized else 41\n",
        (ExecStatus.FAILED,),
    ),
    Hostile(
        "signal_the_worker",
        "import os, signal\ndef answer():\n"
        "    for sig in (signal.SIGINT, signal.SIGTERM, signal.SIGHUP, signal.SIGUSR1, signal.SIGQUIT,\n"
        "                signal.SIGKILL, signal.SIGSTOP):\n"
        "        try:\n            os.kill(1, sig)\n        except OSError:\n            pass\n    return 42\n",
        (ExecStatus.PASSED,),
    ),
]
# Everything a program may try against the processes it can see (the worker and the zygote, root;
# the harness, its own uid): 42 if any read, listing or signal worked, 41 if all were refused, 40 if
# it did not even see them (the test would prove nothing).
ATTACK_EVERY_PROCESS = (
    "import os, signal\n"
    f"TESTS_DIR = {TESTS_DIR!r}\n"
    "def answer():\n"
    "    me = os.getpid()\n"
    "    others = [int(p) for p in os.listdir('/proc') if p.isdigit() and int(p) != me]\n"
    "    got = []\n"
    "    for pid in others:\n"
    "        for name in ('environ', 'mem', 'stack', 'syscall'):\n"
    "            try:\n"
    "                with open(f'/proc/{pid}/{name}', 'rb') as f:\n"
    "                    f.read(1)\n"
    "                got.append((pid, name))\n"
    "            except OSError:\n"
    "                pass\n"
    "        for call in (lambda: os.listdir(f'/proc/{pid}/fd'), lambda: os.readlink(f'/proc/{pid}/cwd')):\n"
    "            try:\n"
    "                call()\n"
    "                got.append((pid, 'fd/cwd'))\n"
    "            except OSError:\n"
    "                pass\n"
    "    for call in (lambda: os.listdir(TESTS_DIR), lambda: open(TESTS_DIR + '/test_hidden.py').read()):\n"
    "        try:\n"
    "            call()\n"
    "            got.append('tests')\n"
    "        except OSError:\n"
    "            pass\n"
    "    for pid in others:\n"
    "        for sig in (signal.SIGSTOP, signal.SIGKILL):\n"
    "            try:\n"
    "                os.kill(pid, sig)\n"
    "                got.append((pid, sig))\n"
    "            except OSError:\n"
    "                pass\n"
    "    try:\n"
    "        os.kill(-1, signal.SIGKILL)\n"
    "    except OSError:\n"
    "        pass\n"
    "    return 42 if got else (41 if len(others) >= 3 else 40)\n"
)
ATTACK_TESTS = {
    "fast": TESTS,
    # real pytest: the harness writes the tests into its directory (only its uid can read it)
    "pytest": "import pytest\nfrom solution import answer\n\n\n@pytest.mark.parametrize('x', [42])\n"
    "def test_answer(x):\n    assert answer() == x\n",
}
LEFTOVER_PATHS = ("/tmp/codegym-leftover", "/dev/shm/codegym-leftover", "/tmp/codegym/leftover")
LEAVE_STATE = (
    "import os\ndef answer():\n"
    f"    found = [p for p in {LEFTOVER_PATHS!r} if os.path.exists(p)]\n"
    f"    for path in {LEFTOVER_PATHS!r}:\n"
    "        try:\n            open(path, 'w').write('x')\n        except OSError:\n            pass\n"
    "    os.makedirs('locked/inner', exist_ok=True)\n    open('locked/inner/f', 'w').write('x')\n"
    "    os.chmod('locked/inner', 0)\n    os.chmod('locked', 0)\n    os.chmod('.', 0o500)\n"
    "    return 42 if found else 41\n"
)


@pytest.fixture(scope="module")
def hostile_backend() -> Iterator[DockerBackend]:
    docker_engine().close()
    with DockerBackend(image=sandbox_image(), workers=1, tmp_size_mb=64) as backend:
        backend.start()
        yield backend


def _container_processes(backend: DockerBackend) -> list[list[str]]:
    """Each container's processes as `docker top` shows them (its first column is the user)."""
    return [backend.engine.api.top(cid)["Processes"] for cid in backend.containers()]


def _assert_only_worker_and_zygote(backend: DockerBackend) -> None:
    """Between runs a container holds the worker (PID 1) and its zygote, both root, and at most the
    persistent harness under the harness uid: no process of the run's program is left."""
    from codegym.sandbox.local import worker_uids

    containers = _container_processes(backend)
    for slot, processes in enumerate(containers):
        roots = [row for row in processes if row[0] == "root"]
        others = [row for row in processes if row[0] != "root"]
        assert len(roots) == 2, processes
        harness_uid = worker_uids(backend.uid_base, slot)[1]
        assert len(others) <= 1, processes
        for row in others:  # `top` shows a uid that has no name, truncated to 8 characters with a "+"
            assert str(harness_uid).startswith(row[0].rstrip("+")), (harness_uid, processes)


def _request(code: str) -> ExecRequest:
    return ExecRequest(files={"solution.py": code}, tests={"test_hidden.py": TESTS}, limits=LIMITS)


@pytest.mark.hostile
@pytest.mark.parametrize("case", HOSTILE + ESCAPES, ids=[case.name for case in HOSTILE + ESCAPES])
def test_hostile_program_is_contained(
    case: Hostile, hostile_backend: DockerBackend, host_listener: socket.socket, tmp_path: Path
) -> None:
    sentinel = subprocess.Popen(["sleep", "300"])
    secret_file = REPO_ROOT / f".{MARKER}-secret"
    secret_file.write_text(SECRET)
    outside = [str(REPO_ROOT / f"{MARKER}-written"), f"/etc/{MARKER}", str(tmp_path / f"{MARKER}-written")]
    os.environ["CODEGYM_SECRET"] = SECRET
    code = case.code.replace("{port}", str(host_listener.getsockname()[1]))
    code = code.replace("{paths!r}", repr(outside if "write" in case.name else [str(secret_file)]))
    code = code.replace("{secret!r}", repr(SECRET))
    restarts = hostile_backend.pool.restarts
    try:
        result = hostile_backend.execute(_request(code))

        assert_contained(case, result, sentinel, host_listener, outside)
        assert result.passed == (case.statuses == (ExecStatus.PASSED,))
        # nothing of the run is left in the container, and the same container serves the next request
        _assert_only_worker_and_zygote(hostile_backend)
        follow_up = hostile_backend.execute(_request(BENIGN))
        assert follow_up.status is ExecStatus.PASSED, follow_up.message
        assert hostile_backend.pool.restarts == restarts and follow_up.attempts == 1
    finally:
        os.environ.pop("CODEGYM_SECRET", None)
        secret_file.unlink(missing_ok=True)
        sentinel.kill()
        sentinel.wait()


@pytest.mark.hostile
@pytest.mark.parametrize("runner", sorted(ATTACK_TESTS))
def test_program_cannot_kill_read_or_trace_the_harness(runner: str, hostile_backend: DockerBackend) -> None:
    """The program runs under another uid than the harness (and the root worker): it can neither
    signal nor read any of them, nor list the harness's test directory; the run fails on its own
    answer with the harness intact, and the same container serves the next run."""
    restarts = hostile_backend.pool.restarts
    containers = hostile_backend.containers()
    request = ExecRequest(
        files={"solution.py": ATTACK_EVERY_PROCESS},
        tests={"test_hidden.py": ATTACK_TESTS[runner]},
        limits=LIMITS,
    )
    result = hostile_backend.execute(request)
    assert result.status is ExecStatus.FAILED, (result.status, result.message, result.stderr[-500:])
    assert [t.message for t in result.tests] == ["AssertionError: 41 != 42"], result.tests
    assert result.attempts == 1 and result.runner == runner
    _assert_only_worker_and_zygote(hostile_backend)
    follow_up = hostile_backend.execute(_request(BENIGN))
    assert follow_up.status is ExecStatus.PASSED and follow_up.attempts == 1, follow_up.message
    assert hostile_backend.pool.restarts == restarts and hostile_backend.containers() == containers


@pytest.mark.hostile
def test_nothing_a_run_leaves_behind_reaches_the_next(hostile_backend: DockerBackend) -> None:
    restarts = hostile_backend.pool.restarts
    first, second = (hostile_backend.execute(_request(LEAVE_STATE)) for _ in range(2))
    assert (first.status, second.status) == (ExecStatus.FAILED, ExecStatus.FAILED), second.message
    assert [t.message for t in second.tests] == ["AssertionError: 41 != 42"]
    follow_up = hostile_backend.execute(_request(BENIGN))
    assert follow_up.status is ExecStatus.PASSED and follow_up.attempts == 1
    assert hostile_backend.pool.restarts == restarts


@pytest.mark.slow
def test_docker_hostile_suite_in_throwaway_pid_namespace() -> None:
    """Runs the cases above under `unshare --pid --fork --mount-proc` (never in this namespace)."""
    if os.environ.get(THROWAWAY_ENV):
        pytest.skip("already inside the throwaway namespace run")
    docker_engine().close()
    sandbox_image()  # build here, outside the namespace, so the inner run only uses it
    env = {**os.environ, THROWAWAY_ENV: os.readlink("/proc/self/ns/pid"), "PYTHONPATH": str(REPO_ROOT)}
    argv = ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child", sys.executable, "-m", "pytest"]
    argv += ["-m", "hostile", "-q", "-p", "no:cacheprovider", "-o", "addopts=", str(Path(__file__).resolve())]
    completed = subprocess.run(argv, capture_output=True, text=True, timeout=900, cwd=REPO_ROOT, env=env)
    output = completed.stdout + completed.stderr
    assert completed.returncode == 0, output[-6000:]
    expected = len(HOSTILE) + len(ESCAPES) + len(ATTACK_TESTS) + 1
    assert re.search(rf"\b{expected} passed\b", output), output[-3000:]
