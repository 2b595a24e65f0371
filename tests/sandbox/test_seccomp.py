"""The program process's seccomp filter (codegym/sandbox/inside/seccomp.py), tested for real.

Each case runs a fresh `python -I -c` that sets no_new_privs, installs the filter and then tries
things, printing one JSON line of results: refused calls must fail with the right errno, and the
ordinary machinery a program relies on (threads, fork, subprocess, multiprocessing, sockets,
files, sleep, select) must keep working.
"""

from __future__ import annotations

import json
import platform
import re
import signal
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from codegym.sandbox.inside import seccomp
from tests.conftest import REPO_ROOT

INSIDE = REPO_ROOT / "codegym" / "sandbox" / "inside"

ARCH = seccomp.current_arch()

pytestmark = pytest.mark.skipif(
    sys.platform != "linux" or ARCH is None, reason="the filter supports x86_64 and aarch64 Linux only"
)

# Numbers the tests use directly, written down independently of the module's tables.
TEST_NUMBERS = {
    "x86_64": {"clone": 56, "clone3": 435, "keyctl": 250, "setns": 308, "getpid": 39},
    "aarch64": {"clone": 220, "clone3": 435, "keyctl": 219, "setns": 268, "getpid": 172},
}

PRELUDE = """
import ctypes, errno, json, os, resource, sys
resource.setrlimit(resource.RLIMIT_CORE, (0, 0))
sys.path.insert(0, {inside!r})
import seccomp
NR = {numbers!r}
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl(38, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
libc.syscall.restype = ctypes.c_long
results = {{}}
if {install!r}:
    results["installed"] = [seccomp.install_program_filter() for _ in range({times!r})]

def errno_of(ret):
    # 0 when the call succeeded, else the errno it failed with.
    return ctypes.get_errno() if ret == -1 else 0

def sys_call(number, *args):
    ctypes.set_errno(0)
    return libc.syscall(ctypes.c_long(number), *[ctypes.c_ulong(a & 0xFFFFFFFFFFFFFFFF) for a in args])

def status(field):
    for line in open("/proc/self/status"):
        if line.startswith(field + ":"):
            return line.split(":", 1)[1].strip()
"""

EPILOGUE = """
print(json.dumps(results), flush=True)
"""


def run_program(
    body: str, tmp_path: Path, *, install: bool = True, times: int = 1
) -> tuple[subprocess.CompletedProcess[str], dict]:
    prelude = PRELUDE.format(inside=str(INSIDE), numbers=TEST_NUMBERS[ARCH], install=install, times=times)
    code = prelude + textwrap.dedent(body) + EPILOGUE
    proc = subprocess.run(
        [sys.executable, "-I", "-c", code], capture_output=True, text=True, timeout=30, cwd=tmp_path
    )
    lines = proc.stdout.strip().splitlines()
    results = json.loads(lines[-1]) if proc.returncode == 0 and lines else {}
    return proc, results


def run_ok(body: str, tmp_path: Path, **kwargs) -> dict:
    proc, results = run_program(body, tmp_path, **kwargs)
    assert proc.returncode == 0, f"rc={proc.returncode}\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return results


def test_installs_and_reports_true(tmp_path: Path) -> None:
    results = run_ok('results["seccomp"] = status("Seccomp")', tmp_path)
    assert results["installed"] == [True]
    assert results["seccomp"] == "2"  # SECCOMP_MODE_FILTER


def test_installing_twice_stacks(tmp_path: Path) -> None:
    body = """
    import threading
    results["filters"] = status("Seccomp_filters")
    results["newuser"] = errno_of(libc.unshare(0x10000000))
    box = []
    thread = threading.Thread(target=lambda: box.append(sum(range(1000))))
    thread.start()
    thread.join()
    results["thread"] = box
    pid = os.fork()
    if pid == 0:
        os._exit(7)
    results["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    """
    results = run_ok(body, tmp_path, times=2)
    assert results["installed"] == [True, True]
    if results["filters"] is not None:  # Seccomp_filters appeared in Linux 5.9
        assert int(results["filters"]) == 2
    assert results["newuser"] == 1  # EPERM
    assert results["thread"] == [499500]
    assert results["fork"] == 7


@pytest.mark.parametrize(
    ("flag", "name"),
    [
        (0x10000000, "CLONE_NEWUSER"),
        (0x00020000, "CLONE_NEWNS"),
        (0x40000000, "CLONE_NEWNET"),
        (0x20000000, "CLONE_NEWPID"),
        (0x08000000, "CLONE_NEWIPC"),
        (0x04000000, "CLONE_NEWUTS"),
        (0x02000000, "CLONE_NEWCGROUP"),
        (0x00000080, "CLONE_NEWTIME"),
        (0x10000000 | 0x00000200, "CLONE_NEWUSER|CLONE_FS"),
    ],
)
def test_unshare_namespaces_refused(tmp_path: Path, flag: int, name: str) -> None:
    results = run_ok(f'results["unshare"] = errno_of(libc.unshare(ctypes.c_int({flag:#x})))', tmp_path)
    assert results["unshare"] == 1, f"unshare({name}) should fail with EPERM"


def test_unshare_without_namespace_flags_allowed(tmp_path: Path) -> None:
    # CLONE_FS | CLONE_FILES: unsharing process attributes, not namespaces.
    results = run_ok('results["unshare"] = errno_of(libc.unshare(ctypes.c_int(0x200 | 0x400)))', tmp_path)
    assert results["unshare"] == 0


def test_clone_with_namespace_flags_refused(tmp_path: Path) -> None:
    body = """
    SIGCHLD = 17
    for key, flags in (("newuser", 0x10000000), ("newns", 0x00020000), ("newpid", 0x20000000)):
        ret = sys_call(NR["clone"], flags | SIGCHLD, 0, 0, 0, 0)
        if ret == 0:
            os._exit(0)  # the child of an unexpectedly successful clone
        if ret > 0:
            os.waitpid(ret, 0)
        results[key] = errno_of(ret)
    """
    results = run_ok(body, tmp_path)
    assert results == {"installed": [True], "newuser": 1, "newns": 1, "newpid": 1}


def test_plain_clone_and_clone3_fallback(tmp_path: Path) -> None:
    body = """
    ret = sys_call(NR["clone"], 17, 0, 0, 0, 0)  # SIGCHLD only: a fork
    if ret == 0:
        os._exit(5)
    results["clone"] = os.waitstatus_to_exitcode(os.waitpid(ret, 0)[1]) if ret > 0 else -errno_of(ret)
    results["clone3"] = errno_of(sys_call(NR["clone3"], 0, 0))
    """
    results = run_ok(body, tmp_path)
    assert results["clone"] == 5
    assert results["clone3"] == 38  # ENOSYS, so libc falls back to clone


def test_setns_refused(tmp_path: Path) -> None:
    body = """
    fd = os.open("/proc/self/ns/uts", os.O_RDONLY)
    results["libc"] = errno_of(libc.setns(fd, 0))
    results["raw"] = errno_of(sys_call(NR["setns"], fd, 0))
    """
    results = run_ok(body, tmp_path)
    assert results["libc"] == 1
    assert results["raw"] == 1


def test_keyctl_refused(tmp_path: Path) -> None:
    # KEYCTL_GET_KEYRING_ID (0) of KEY_SPEC_SESSION_KEYRING (-3), create=1.
    results = run_ok('results["keyctl"] = errno_of(sys_call(NR["keyctl"], 0, -3, 1))', tmp_path)
    assert results["keyctl"] == 1


def test_mq_open_refused(tmp_path: Path) -> None:
    body = """
    import ctypes.util
    mq_open = getattr(libc, "mq_open", None)
    if mq_open is None:
        mq_open = ctypes.CDLL(ctypes.util.find_library("rt"), use_errno=True).mq_open
    mq_open.restype = ctypes.c_int
    ctypes.set_errno(0)
    name = ("/codegym-seccomp-%d" % os.getpid()).encode()
    fd = mq_open(name, os.O_CREAT | os.O_RDWR, ctypes.c_uint(0o600), None)
    results["mq_open"] = errno_of(fd)
    """
    results = run_ok(body, tmp_path)
    assert results["mq_open"] == 1


def test_attack_surface_refused(tmp_path: Path) -> None:
    # Arguments chosen so that none of these could do anything even if the filter let them
    # through: bad pointers (1), bad descriptors (-1), invalid flags.
    body = """
    special = {
        "kexec_load": (0, 0, 0, 0xFFFFFFFF),
        "kexec_file_load": (-1, -1, 0, 0, 0xFFFFFFFF),
        "finit_module": (-1, 1, 0),
        "reboot": (0, 0, 0, 0),
        "ptrace": (-1, 0, 0, 0),
    }
    numbers = seccomp.SYSCALL_NUMBERS[seccomp.current_arch()]
    for name in seccomp.REFUSED_SYSCALLS:
        args = special.get(name, (1, 1, 1, 1, 1, 1))
        ret = sys_call(numbers[name], *args)
        results[name] = errno_of(ret)
        if ret >= 0 and name == "userfaultfd":
            os.close(ret)
    """
    results = run_ok(body, tmp_path)
    assert results.pop("installed") == [True]
    assert set(results) == set(seccomp.REFUSED_SYSCALLS)
    not_refused = {name: err for name, err in results.items() if err != 1}
    assert not not_refused, f"expected EPERM from every refused syscall, got {not_refused}"


def test_personality_only_query_and_linux(tmp_path: Path) -> None:
    body = """
    libc.personality.restype = ctypes.c_int
    def personality(value):
        ctypes.set_errno(0)
        return libc.personality(ctypes.c_ulong(value))
    results["query"] = personality(0xFFFFFFFF)
    results["linux"] = personality(0)
    ret = personality(0x0040000)  # ADDR_NO_RANDOMIZE
    results["no_randomize"] = errno_of(ret)
    results["after"] = personality(0xFFFFFFFF)
    """
    results = run_ok(body, tmp_path)
    assert results["query"] >= 0
    assert results["linux"] >= 0
    assert results["no_randomize"] == 1
    assert results["after"] == 0


@pytest.mark.skipif(ARCH != "x86_64", reason="x32 is an x86_64 ABI")
def test_x32_syscalls_refused(tmp_path: Path) -> None:
    body = """
    results["x32_getpid"] = errno_of(sys_call(0x40000000 | NR["getpid"]))
    results["getpid"] = sys_call(NR["getpid"]) == os.getpid()
    """
    results = run_ok(body, tmp_path)
    assert results["x32_getpid"] == 1
    assert results["getpid"] is True


INT80_GETPID = """
import mmap
# mov eax, 20 (i386 getpid); int 0x80; ret
code = bytes([0xB8, 0x14, 0x00, 0x00, 0x00, 0xCD, 0x80, 0xC3])
page = mmap.mmap(-1, mmap.PAGESIZE, prot=mmap.PROT_READ | mmap.PROT_WRITE | mmap.PROT_EXEC)
page.write(code)
address = ctypes.addressof(ctypes.c_char.from_buffer(page))
results["int80"] = ctypes.CFUNCTYPE(ctypes.c_int)(address)()
results["pid"] = os.getpid()
"""


@pytest.mark.skipif(ARCH != "x86_64", reason="int 0x80 is the i386 entry on x86_64")
def test_i386_syscall_kills_the_process(tmp_path: Path) -> None:
    control, results = run_program(INT80_GETPID, tmp_path, install=False)
    if control.returncode != 0 or results.get("int80") != results.get("pid"):
        pytest.skip(f"no working i386 emulation here (rc={control.returncode}, {results})")
    proc, results = run_program(INT80_GETPID, tmp_path)
    assert proc.returncode == -signal.SIGSYS, (proc.returncode, proc.stdout, proc.stderr)
    assert results == {}


def test_threads_and_thread_pool_work(tmp_path: Path) -> None:
    body = """
    import concurrent.futures, threading
    out = [0] * 4
    def work(i):
        out[i] = sum(range(i * 10000))
    threads = [threading.Thread(target=work, args=(i,)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    results["threads"] = out
    with concurrent.futures.ThreadPoolExecutor(max_workers=4) as pool:
        results["pool"] = list(pool.map(lambda x: x * x, range(8)))
    """
    results = run_ok(body, tmp_path)
    assert results["threads"] == [sum(range(i * 10000)) for i in range(4)]
    assert results["pool"] == [x * x for x in range(8)]


def test_fork_and_subprocess_work(tmp_path: Path) -> None:
    body = """
    import subprocess
    pid = os.fork()
    if pid == 0:
        os._exit(3)
    results["fork"] = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    results["true"] = subprocess.run(["true"]).returncode
    results["echo"] = subprocess.run(["echo", "hi"], capture_output=True, text=True).stdout
    results["python"] = subprocess.run([sys.executable, "-I", "-c", "print(6 * 7)"],
                                       capture_output=True, text=True).stdout
    """
    results = run_ok(body, tmp_path)
    assert results["fork"] == 3
    assert results["true"] == 0
    assert results["echo"] == "hi\n"
    assert results["python"] == "42\n"


def test_multiprocessing_fork_pool_works(tmp_path: Path) -> None:
    body = """
    import multiprocessing
    def square(x):
        return x * x
    with multiprocessing.get_context("fork").Pool(2) as pool:
        results["map"] = pool.map(square, range(10))
    """
    results = run_ok(body, tmp_path)
    assert results["map"] == [x * x for x in range(10)]


def test_sockets_files_sleep_select_work(tmp_path: Path) -> None:
    body = """
    import select, socket, time
    a, b = socket.socketpair()
    a.sendall(b"ping")
    ready, _, _ = select.select([b], [], [], 1.0)
    results["select"] = len(ready)
    results["socket"] = b.recv(4).decode()
    with open("data.txt", "w") as f:
        f.write("hello")
    with open("data.txt") as f:
        results["file"] = f.read()
    with open(seccomp.__file__) as f:
        results["read_module"] = len(f.read()) > 0
    start = time.monotonic()
    time.sleep(0.05)
    results["slept"] = time.monotonic() - start >= 0.04
    """
    results = run_ok(body, tmp_path)
    assert results["select"] == 1
    assert results["socket"] == "ping"
    assert results["file"] == "hello"
    assert results["read_module"] is True
    assert results["slept"] is True


def test_build_program_shape() -> None:
    for arch, audit_arch in seccomp.AUDIT_ARCHES.items():
        program = seccomp.build_program(arch)
        assert len(program) < 4096  # BPF_MAXINSNS
        # The arch check comes first and kills on a mismatch.
        assert program[0] == (seccomp.BPF_LD_W_ABS, 0, 0, seccomp.OFFSET_ARCH)
        assert program[1] == (seccomp.BPF_JEQ_K, 1, 0, audit_arch)
        assert program[2] == (seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_KILL_PROCESS)
        assert program[-1] == (seccomp.BPF_RET_K, 0, 0, seccomp.SECCOMP_RET_ALLOW)
        # Every jump lands inside the program, and it cannot fall off the end.
        for index, (code, jt, jf, _k) in enumerate(program):
            if code & 0x07 == 0x05:  # BPF_JMP
                assert index + 1 + max(jt, jf) < len(program)
            else:
                assert code & 0x07 in (0x00, 0x06)  # BPF_LD, BPF_RET


def _header_numbers(path: Path) -> dict[str, int]:
    numbers: dict[str, int] = {}
    for match in re.finditer(r"#define\s+__NR(?:3264)?_(\w+)\s+(\d+)\b", path.read_text()):
        numbers.setdefault(match.group(1), int(match.group(2)))
    return numbers


@pytest.mark.parametrize(
    ("arch", "header"),
    [
        ("x86_64", "/usr/include/x86_64-linux-gnu/asm/unistd_64.h"),
        ("aarch64", "/usr/include/asm-generic/unistd.h"),
    ],
)
def test_syscall_tables_match_kernel_headers(arch: str, header: str) -> None:
    path = Path(header)
    if not path.exists():
        pytest.skip(f"{header} not installed (linux-libc-dev)")
    expected = _header_numbers(path)
    table = seccomp.SYSCALL_NUMBERS[arch]
    named = (
        seccomp.REFUSED_SYSCALLS
        + seccomp.NAMESPACE_CHECKED_SYSCALLS
        + seccomp.PERSONALITY_CHECKED_SYSCALLS
        + seccomp.ENOSYS_SYSCALLS
        + seccomp.SIGACTION_CHECKED_SYSCALLS
    )
    assert set(table) == set(named)
    missing = sorted(name for name in table if name not in expected)
    assert not missing, f"{header} lacks {missing}"
    wrong = {name: (number, expected[name]) for name, number in table.items() if expected[name] != number}
    assert not wrong, f"numbers differ from {header}: {wrong}"


def test_the_second_filter_keeps_sigchld_as_it_is(tmp_path: Path) -> None:
    """SIG_IGN or SA_NOCLDWAIT on SIGCHLD would have the kernel reap children at once, their CPU time
    unmeasured: with the second filter the call returns 0 and changes nothing (the child stays
    waitable); other signals' actions and queries are untouched."""
    _, results = run_program(
        """
        import signal
        seccomp.prepare_sigchld_filter()()
        signal.signal(signal.SIGCHLD, signal.SIG_IGN)
        pid = os.fork()
        if pid == 0:
            os._exit(3)
        results["reaped"] = os.waitpid(pid, 0) == (pid, 3 << 8)
        flags = (ctypes.c_char * 152)()
        ctypes.memmove(ctypes.addressof(flags) + 136, (ctypes.c_int * 1)(2), 4)  # sa_flags: SA_NOCLDWAIT
        results["nocldwait"] = libc.sigaction(17, flags, None)
        pid = os.fork()
        if pid == 0:
            os._exit(4)
        results["reaped_again"] = os.waitpid(pid, 0) == (pid, 4 << 8)
        signal.signal(signal.SIGUSR1, signal.SIG_IGN)
        results["sigusr1_ignored"] = int(status("SigIgn"), 16) & (1 << 9) != 0
        results["sigchld_ignored"] = int(status("SigIgn"), 16) & (1 << 16) != 0
        """,
        tmp_path,
    )
    assert results == {
        "installed": [True],
        "reaped": True,
        "nocldwait": 0,
        "reaped_again": True,
        "sigusr1_ignored": True,
        "sigchld_ignored": False,
    }


def test_unsupported_machine_installs_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(platform, "machine", lambda: "riscv64")
    assert seccomp.current_arch() is None
    assert seccomp.install_program_filter() is False


def test_control_same_call_succeeds_without_filter(tmp_path: Path) -> None:
    """The EPERM comes from the filter: without it, the same unshare succeeds here (skipped where
    the environment itself refuses it, e.g. without CAP_SYS_ADMIN)."""
    body = 'results["unshare"] = errno_of(libc.unshare(ctypes.c_int(0x00020000)))'
    without = run_ok(body, tmp_path, install=False)
    if without["unshare"] != 0:
        pytest.skip(f"unshare(CLONE_NEWNS) is refused here anyway (errno {without['unshare']})")
    assert run_ok(body, tmp_path)["unshare"] == 1
