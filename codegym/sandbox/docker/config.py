"""Settings of the docker backend, and the image layout both build paths produce."""

from __future__ import annotations

from dataclasses import dataclass, field

# The run's layout inside the sandbox (SCRATCH_ROOT, TESTS_DIR) is the same for every backend.
from codegym.sandbox.local import SCRATCH_ROOT as SCRATCH_ROOT
from codegym.sandbox.local import STDLIB_PRELOAD
from codegym.sandbox.local import TESTS_DIR as TESTS_DIR

# The layout every sandbox image has, whichever way its base was made (registry or debootstrap).
IMAGE_PYTHON = "/usr/bin/python3"
IMAGE_INSIDE_DIR = "/opt/codegym/inside"
# Links into the image's packages, made by inside/packages.py when the image is built.
IMAGE_SITE_DIR = "/opt/codegym/site"
HARNESS_SITE = f"{IMAGE_SITE_DIR}/harness"
PROGRAM_SITE = f"{IMAGE_SITE_DIR}/program"
# The image's default user (`nobody`): it has no account of its own. The backend overrides it: the
# worker runs as root with a few capabilities, the harness and the programs under per-pool uids.
IMAGE_DEFAULT_UID = 65534

IMAGE_REPOSITORY = "codegym-sandbox"
BASE_REPOSITORY = "codegym-sandbox-base"

# Every container we create carries these labels, so that close(), exit and `sandbox cleanup` find them.
LABEL_SANDBOX = "org.codegym.sandbox"
LABEL_POOL = "org.codegym.pool"
LABEL_OWNER = "org.codegym.owner"
LABEL_RECIPE = "org.codegym.recipe"
LABEL_BASE_SOURCE = "org.codegym.base-source"

# The container's writable places (read-only root) other than the run's own directories: the zygote
# removes what the program's uid left in PROGRAM_WIPE_DIRS after every pass (its processes are dead
# by then), the worker empties WORKER_WIPE_DIRS after every run.
PROGRAM_WIPE_DIRS = ("/dev/shm", "/tmp", "/dev/mqueue")  # mqueue: open() there makes a queue
WORKER_WIPE_DIRS = ("/dev/mqueue", "/dev/shm")
CONTAINER_ENV = {"PATH": "/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "PYTHONHASHSEED": "0"}


@dataclass(frozen=True)
class DockerSandboxConfig:
    workers: int = field(
        default=0,
        metadata={
            "help": "Warm containers in the pool (0 = one per usable CPU; two per CPU without pin_cpus)."
        },
    )
    image: str = field(
        default="",
        metadata={"help": "Image reference (default: codegym-sandbox:<recipe hash>, see `sandbox build`)."},
    )
    preload: tuple[str, ...] = field(
        default=STDLIB_PRELOAD,
        metadata={"help": "Modules each worker imports once before forking, so programs don't pay for them."},
    )
    memory_mb: int = field(default=2048, metadata={"help": "Memory cgroup limit per container (no swap)."})
    cpus: float = field(default=1.0, metadata={"help": "CPU limit per container (CFS quota, in cores)."})
    pids_limit: int = field(default=256, metadata={"help": "Processes/threads per container (pids cgroup)."})
    tmp_size_mb: int = field(default=256, metadata={"help": "Size of each container's scratch tmpfs (/tmp)."})
    shm_size_mb: int = field(default=64, metadata={"help": "Size of each container's /dev/shm."})
    start_timeout_s: float = field(
        default=60.0, metadata={"help": "Time a container's worker has to come up."}
    )
    max_retries: int = field(default=2, metadata={"help": "Retries of an execution after a sandbox error."})
    engine_wait_s: float = field(
        default=30.0, metadata={"help": "How long a (re)start waits for an unreachable engine to come back."}
    )
    docker_host: str = field(
        default="", metadata={"help": "Engine URL, e.g. unix:///var/run/docker.sock (default: DOCKER_HOST)."}
    )
    uid_base: int | None = field(
        default=None,
        metadata={"help": "First of the pool's uids, two per container slot (default: random per pool)."},
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
            "help": "Keep each container's worker, with its harness and programs, on one CPU (spread over "
            "the usable CPUs): a test's calls to the program then never wake another CPU."
        },
    )

    def __post_init__(self) -> None:
        problems = []
        if self.workers < 0:
            problems.append(f"workers must be >= 0, got {self.workers}")
        if self.memory_mb < 64:
            problems.append(f"memory_mb must be >= 64, got {self.memory_mb}")
        if not self.cpus > 0:
            problems.append(f"cpus must be > 0, got {self.cpus}")
        if self.pids_limit < 8:
            problems.append(f"pids_limit must be >= 8, got {self.pids_limit}")
        if self.tmp_size_mb < 16:
            problems.append(f"tmp_size_mb must be >= 16, got {self.tmp_size_mb}")
        if self.shm_size_mb < 1:
            problems.append(f"shm_size_mb must be >= 1, got {self.shm_size_mb}")
        if self.uid_base is not None and self.uid_base < 1000:
            problems.append(f"uid_base must be >= 1000 (never a system uid), got {self.uid_base}")
        if problems:
            raise ValueError("DockerSandboxConfig: " + "; ".join(problems))
