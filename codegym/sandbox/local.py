"""The `local` backend: the embedded default, no daemon needed.

Each worker is a long-lived process in fresh Linux namespaces — PID, network, mount, IPC, UTS (and
a user namespace when not root) — made by bubblewrap when it is installed, else by util-linux
`unshare`. The worker forks one child per execution (see `inside/worker.py`).

What it protects against:
* the program seeing or touching the host: its own PID namespace (it can signal nothing outside),
  no network (only a loopback of its own; host loopback ports are unreachable), a read-only view of
  the system, home/temp/project directories hidden under empty tmpfs, a scrubbed environment, and
  a private scratch directory on a size-capped tmpfs that is wiped after every run;
* exhausting resources: rlimits on address space, CPU time, processes, file size and open files;
  a wall-clock deadline after which every process of the run is SIGKILLed; capped output;
* escalating: no_new_privs, and when run as root the program runs under an unprivileged per-worker
  uid (so it cannot signal its worker), or with all capabilities dropped inside a user namespace;
* forging its verdict: see `inside/runner.py`.

What it does not protect against: kernel exploits (it is not a VM — use the docker backend, or a
VM, for adversarial code at scale), timing side channels, CPU contention between workers, and the
kernel's global limits (the process budget is per uid, memory is capped by address space, not by
a cgroup, so page cache and tmpfs pages are shared with the host).
"""

from __future__ import annotations

import functools
import json
import os
import shutil
import site
import subprocess
import sys
from collections.abc import Iterable, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any, Literal

from codegym.sandbox.backend import PooledBackend, SandboxUnavailable
from codegym.sandbox.pool import WorkerPool

INSIDE_DIR = Path(__file__).resolve().parent / "inside"
SANDBOX_INSIDE_MOUNT = "/run/codegym-inside"
SCRATCH_ROOT = "/tmp/codegym"  # inside the sandbox: the worker runs programs in SCRATCH_ROOT/run
SANDBOX_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}
HIDDEN_SYSTEM_DIRS = ("/root", "/home", "/tmp", "/var/tmp", "/dev/shm", "/run", "/mnt", "/media", "/srv")
WORKER_CAPABILITIES = ("CAP_SETUID", "CAP_SETGID", "CAP_CHOWN", "CAP_KILL", "CAP_DAC_OVERRIDE", "CAP_FOWNER")

# Imported once per worker, not per run: common in generated code and slow to import here (typing
# ~20 ms). Kept short on purpose: every preloaded page makes each per-run fork a little slower.
STDLIB_PRELOAD = ("typing", "math", "collections", "itertools", "functools")
# ... plus coverage.py, for runs that measure coverage (the reward's): its start-up is paid once
COVERAGE_PRELOAD = (*STDLIB_PRELOAD, "coverage")

Isolation = Literal["auto", "bwrap", "unshare"]


@dataclass(frozen=True)
class LocalSandboxConfig:
    workers: int = field(default=0, metadata={"help": "Warm workers (0 = two per CPU core)."})
    isolation: Isolation = field(
        default="auto", metadata={"help": "auto (bubblewrap if usable, else unshare), bwrap or unshare."}
    )
    tmp_size_mb: int = field(default=256, metadata={"help": "Size of each worker's scratch tmpfs."})
    hide_paths: tuple[str, ...] = field(
        default=(), metadata={"help": "Extra host directories to hide (home, /tmp, the project are always)."}
    )
    preload: tuple[str, ...] = field(
        default=STDLIB_PRELOAD,
        metadata={"help": "Modules each worker imports once before forking, so programs don't pay for them."},
    )
    start_timeout_s: float = field(default=30.0, metadata={"help": "Time a worker has to come up."})
    max_retries: int = field(default=2, metadata={"help": "Retries of an execution after a sandbox error."})
    uid_base: int | None = field(
        default=None,
        metadata={"help": "First uid for programs when run as root (default: derived from pid)."},
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


def _project_root() -> Path | None:
    root = Path(__file__).resolve().parents[2]
    return root if (root / "pyproject.toml").exists() else None


def _python_paths() -> list[str]:
    """Directories the worker's Python needs, to re-expose read-only under the hidden ones."""
    candidates = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    candidates.add(str(Path(sys.executable).resolve().parent.parent))
    candidates.update(site.getsitepackages())
    for module_name in ("pytest", "_pytest", "pluggy", "coverage", "iniconfig", "packaging"):
        module = sys.modules.get(module_name)
        if module is None:
            try:
                module = __import__(module_name)
            except ImportError:
                continue
        location = getattr(module, "__file__", None)
        if location:
            candidates.add(str(Path(location).resolve().parent.parent))
    resolved = sorted({str(Path(p).resolve()) for p in candidates if p and Path(p).exists()})
    return [p for p in resolved if not any(p != q and p.startswith(q.rstrip("/") + "/") for q in resolved)]


def _hidden_paths(extra: Iterable[str]) -> list[str]:
    hidden = list(HIDDEN_SYSTEM_DIRS)
    for path in (_project_root(), Path.cwd(), Path.home(), *map(Path, extra)):
        if path is None:
            continue
        resolved = str(path.resolve())
        if resolved not in ("/", "/usr", "/etc", "/bin", "/lib") and resolved not in hidden:
            hidden.append(resolved)
    return [p for p in hidden if os.path.isdir(p) and not os.path.islink(p)]


def default_worker_count() -> int:
    """Two workers per core: a run is latency-bound (a worker waits on the host between runs and on
    its child during one), so one per core leaves cores idle; two keep them busy."""
    return 2 * (os.cpu_count() or 1)


def _default_uid_base() -> int:
    # Distinct per process, so concurrent codegym runs don't share a per-uid process budget.
    return 200_000 + (os.getpid() % 100_000) * 64


class LocalBackend(PooledBackend):
    """Warm, namespace-isolated workers on this machine."""

    name = "local"

    def __init__(self, config: LocalSandboxConfig | None = None, **overrides: Any) -> None:
        base = config or LocalSandboxConfig()
        self.config = LocalSandboxConfig(**{**asdict(base), **overrides}) if overrides else base
        self.isolation = resolve_isolation(self.config.isolation)
        self.privileged = _privileged()
        self.uid_base = self.config.uid_base if self.config.uid_base is not None else _default_uid_base()
        self.workers = self.config.workers or default_worker_count()
        self.expose = _python_paths()
        self.hide = _hidden_paths(self.config.hide_paths)
        self._host_pid_namespace = os.readlink("/proc/self/ns/pid")
        self.pool = WorkerPool(
            self.workers,
            self._launch_command,
            env=dict(SANDBOX_ENV),
            backend_name=self.name,
            image=self.image,
            start_timeout_s=self.config.start_timeout_s,
            max_retries=self.config.max_retries,
            scratch_dir=f"{SCRATCH_ROOT}/run",
        )

    @property
    def image(self) -> str:
        version = ".".join(map(str, sys.version_info[:3]))
        return f"local:{self.isolation}:python{version}"

    def _worker_config(self, slot: int, mounts: dict | None) -> str:
        return json.dumps(
            {
                "slot": slot,
                "sandbox_uid": self.uid_base + slot if self.privileged else None,
                "scratch_root": SCRATCH_ROOT,
                "host_pid_namespace": self._host_pid_namespace,
                "preload": list(self.config.preload),
                "mounts": mounts,
            }
        )

    def _launch_command(self, slot: int) -> Sequence[str]:
        python = sys.executable
        if self.isolation == "bwrap":
            return self._bwrap_command(slot, python)
        mounts = {"hide": self.hide, "expose": self.expose, "tmp_size_mb": self.config.tmp_size_mb}
        worker = str(INSIDE_DIR / "worker.py")
        return [
            "unshare",
            *_namespace_flags_unshare(self.privileged),
            python,
            "-I",
            "-B",
            worker,
            self._worker_config(slot, mounts),
        ]

    def _bwrap_command(self, slot: int, python: str) -> list[str]:
        argv = [*_bwrap_base(self.privileged), "--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc"]
        for path in self.hide:
            if path == "/tmp":
                argv += ["--size", str(self.config.tmp_size_mb * 1024 * 1024), "--tmpfs", "/tmp"]
            else:
                argv += ["--tmpfs", path]
        for path in self.expose:
            # bwrap would create missing parents 0700; the program's uid must be able to traverse them
            for parent in reversed(Path(path).parents):
                if any(str(parent).startswith(h + "/") for h in self.hide):
                    argv += ["--perms", "0755", "--dir", str(parent)]
            argv += ["--ro-bind", path, path]
        argv += ["--ro-bind", str(INSIDE_DIR), SANDBOX_INSIDE_MOUNT, "--clearenv", "--chdir", "/"]
        for key, value in SANDBOX_ENV.items():
            argv += ["--setenv", key, value]
        if self.privileged:
            for capability in WORKER_CAPABILITIES:
                argv += ["--cap-add", capability]
        argv += [
            "--",
            python,
            "-I",
            "-B",
            f"{SANDBOX_INSIDE_MOUNT}/worker.py",
            self._worker_config(slot, None),
        ]
        return argv

    def info(self) -> dict[str, Any]:
        return {
            "backend": self.name,
            "image": self.image,
            "isolation": self.isolation,
            "namespaces": ["pid", "net", "mount", "ipc", "uts"] + ([] if self.privileged else ["user"]),
            "program_uid": f"{self.uid_base}+slot" if self.privileged else "unprivileged (user namespace)",
            "workers": self.workers,
            "python": sys.executable,
            "hidden_paths": self.hide,
            "exposed_read_only": self.expose,
            "scratch_tmpfs_mb": self.config.tmp_size_mb,
            "pool": [{"slot": w.slot, "pid": w.pid, **w.details} for w in self.pool.describe()],
            **self.pool_state(),
        }
