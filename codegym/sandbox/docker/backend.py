"""The `docker` backend: a warm pool of long-lived, hardened containers.

Each container runs the same warm worker as the local backend (`inside/worker.py`) as its main
process (PID 1); executions are dispatched into the pool over the containers' attach sockets. Per
run the worker forks a trusted harness (the tests) and, per pass, a zygote forks an untrusted
program process (the candidate): a fresh fork, not a fresh container.

What it isolates, on top of what the worker does per run (see `inside/worker.py`):
* from the host: separate PID, mount, IPC, UTS and network namespaces (network `none`: not even
  host loopback), a read-only root filesystem, the engine's default seccomp profile (and the
  worker's own, stricter filter on every program process), no-new-privileges, no setuid binaries
  in the image, no docker socket. The worker is root inside the container (it must switch between
  uids) but holds only the capabilities it needs for that — CAP_SETUID, CAP_SETGID, CAP_KILL,
  CAP_CHOWN, CAP_DAC_OVERRIDE, CAP_FOWNER — with every other capability dropped, and it is the
  container's init (the kernel keeps SIGKILL from inside away from it);
* the program from the harness and the verdict: programs and harness run under two distinct uids
  of the pool (random per pool: two pools, or a local and a docker pool, never share a uid nor its
  process limit); the program holds none of the worker's capabilities and cannot signal, trace or
  read the harness, its memory or its test directory;
* resources, per container: memory cgroup (no swap), pids cgroup, CPU quota, size-capped tmpfs for
  /tmp (scratch) and /dev/shm; per program process the worker's rlimits and deadline;
* state crossing runs: after every pass the zygote kills every process of the program's uid and
  removes its files in /tmp and /dev/shm and its SysV IPC objects (the container's IPC namespace
  lives as long as the container); after every run the worker kills the harness, empties the run's
  directories and /dev/mqueue; a container whose worker could not clean up exits and is replaced.

What it does not: kernel exploits (containers share the host kernel; use a VM runtime such as
gVisor or Kata via the engine for that), timing side channels, and CPU contention between
containers beyond their quotas. Its own failures — engine down or restarting, a container killed
or removed from outside — come back as retried `sandbox_error`s.
"""

from __future__ import annotations

import json
import os
import threading
import uuid
import weakref
from dataclasses import asdict
from typing import Any

from docker.types import LogConfig

from codegym.sandbox.backend import PooledBackend, SandboxUnavailable
from codegym.sandbox.docker.cleanup import pool_labels, sweep_quietly
from codegym.sandbox.docker.config import (
    CONTAINER_ENV,
    HARNESS_SITE,
    IMAGE_INSIDE_DIR,
    IMAGE_PYTHON,
    PROGRAM_SITE,
    PROGRAM_WIPE_DIRS,
    SCRATCH_ROOT,
    TESTS_DIR,
    WORKER_WIPE_DIRS,
    DockerSandboxConfig,
)
from codegym.sandbox.docker.engine import Engine
from codegym.sandbox.docker.images import default_image_reference
from codegym.sandbox.docker.transport import ContainerTransport
from codegym.sandbox.inside.osutil import WORKER_CAPABILITIES
from codegym.sandbox.local import (
    HARNESS_PRELOAD,
    default_worker_count,
    random_uid_base,
    worker_cpus,
    worker_uids,
)
from codegym.sandbox.pool import WorkerPool
from codegym.sandbox.precompile import store_dir_for


def _release(pool: WorkerPool, engine: Engine, pool_id: str, sweeper: threading.Thread) -> None:
    """Stop the workers and remove every container of the pool (also those we lost track of)."""
    pool.close()
    sweep_quietly(engine, pool_id=pool_id)
    sweeper.join()
    engine.close()


class DockerBackend(PooledBackend):
    """Warm workers in hardened containers of the sandbox image."""

    name = "docker"

    def __init__(self, config: DockerSandboxConfig | None = None, **overrides: Any) -> None:
        base = config or DockerSandboxConfig()
        self.config = DockerSandboxConfig(**{**asdict(base), **overrides}) if overrides else base
        self.engine = Engine(self.config.docker_host)
        self.reference = self.config.image or default_image_reference()
        image_id = self.engine.image_id(self.reference)
        if image_id is None:
            self.engine.close()
            raise SandboxUnavailable(
                f"the sandbox image {self.reference} is not built: run `codegym sandbox build`"
            )
        self.image_id = image_id
        # as for the local backend: one per CPU when pinned, two per CPU otherwise
        self.workers = self.config.workers or default_worker_count(self.config.pin_cpus)
        self.cpus = worker_cpus(self.workers, self.config.pin_cpus)
        self.pool_id = uuid.uuid4().hex[:12]
        # Random per pool (the local backend's scheme), so no two pools share a uid or its limits.
        self.uid_base = self.config.uid_base if self.config.uid_base is not None else random_uid_base()
        self._host_pid_namespace = os.readlink("/proc/self/ns/pid")
        self._labels = pool_labels(self.pool_id)
        self._transports: dict[int, ContainerTransport] = {}
        # Containers whose owner died without cleaning up (SIGKILL): removed beside our start,
        # not before it (a leftover's removal takes a round trip or more to the engine).
        self._sweeper = threading.Thread(
            target=sweep_quietly, args=(self.engine,), name="codegym-docker-sweep", daemon=True
        )
        self._sweeper.start()
        self.pool = WorkerPool(
            self.workers,
            transport=self._transport,
            backend_name=self.name,
            image=self.image,
            start_timeout_s=self.config.start_timeout_s,
            max_retries=self.config.max_retries,
            tests_dir=TESTS_DIR,  # the image's Python ignores the host's bytecode if its magic differs
            compiled_tests_dir=store_dir_for(self.config.compiled_tests_dir),
        )
        # Runs at close() or, if nobody closes us, at interpreter exit: no container outlives us.
        self._release = weakref.finalize(self, _release, self.pool, self.engine, self.pool_id, self._sweeper)

    @property
    def image(self) -> str:
        return f"{self.reference}@{self.image_id}"

    def _transport(self, slot: int) -> ContainerTransport:
        transport = ContainerTransport(
            self.engine, slot, self._create_options, engine_wait_s=self.config.engine_wait_s
        )
        self._transports[slot] = transport
        return transport

    def _worker_config(self, slot: int) -> dict[str, Any]:
        """The worker's JSON argument: the local backend's keys, with no mounts to make (the image
        is the filesystem) and the container's writable places to clean."""
        program_uid, harness_uid = worker_uids(self.uid_base, slot)
        return {
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
            "program_wipe": list(PROGRAM_WIPE_DIRS),
            "wipe": list(WORKER_WIPE_DIRS),
            "mounts": None,
            "inside_dir": IMAGE_INSIDE_DIR,
            "limit_capabilities": False,  # the engine grants exactly WORKER_CAPABILITIES (below)
        }

    def _create_options(self, slot: int) -> dict[str, Any]:
        """Everything `create_container` gets: the hardening lives here."""
        config = self.config
        host_config = self.engine.api.create_host_config(
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={config.tmp_size_mb}m,mode=1777"},
            shm_size=f"{config.shm_size_mb}m",
            ipc_mode="private",
            cap_drop=["ALL"],
            cap_add=list(WORKER_CAPABILITIES),
            security_opt=["no-new-privileges:true"],
            pids_limit=config.pids_limit,
            mem_limit=f"{config.memory_mb}m",
            memswap_limit=f"{config.memory_mb}m",
            nano_cpus=int(config.cpus * 1e9),
            # The stream carries the protocol's frames: a logging driver would write every result to disk.
            log_config=LogConfig(type=LogConfig.types.NONE),
            init=False,  # the worker must be PID 1 (see inside/worker.py)
        )
        return {
            "image": self.image_id,  # the id, not the tag: exactly the image recorded in results
            # -S: no site packages; the worker puts the image's site directories on each process's path
            "entrypoint": [IMAGE_PYTHON, "-I", "-S", "-B", f"{IMAGE_INSIDE_DIR}/boot.py"],
            "command": [json.dumps(self._worker_config(slot))],
            # root, to switch between the program's and the harness's uids; capabilities as above
            "user": "0:0",
            "stdin_open": True,
            "labels": {**self._labels, "org.codegym.slot": str(slot)},
            "hostname": "codegym-sandbox",
            "environment": dict(CONTAINER_ENV),
            "working_dir": "/",
            "network_disabled": True,
            "stop_signal": "SIGKILL",  # the worker ignores SIGTERM as PID 1; don't wait 10 s for it
            "host_config": host_config,
        }

    def containers(self) -> list[str]:
        """Ids of the pool's current containers (one per started slot)."""
        return [t.container_id for _, t in sorted(self._transports.items()) if t.container_id]

    def info(self) -> dict[str, Any]:
        config = self.config
        pool = []
        for worker in self.pool.describe():
            transport = self._transports.get(worker.slot)
            program_uid, harness_uid = worker_uids(self.uid_base, worker.slot)
            pool.append(
                {
                    "slot": worker.slot,
                    "container": transport.container_id[:12] if transport else "",
                    "pid": worker.pid,
                    "program_uid": program_uid,
                    "harness_uid": harness_uid,
                    "alive": bool(transport and transport.alive),
                    **{k: v for k, v in worker.details.items() if k != "pid"},  # pid: inside the container
                }
            )
        program_uid, harness_uid = worker_uids(self.uid_base, 0)
        return {
            "backend": self.name,
            "image": self.image,
            "image_reference": self.reference,
            "image_id": self.image_id,
            **self.engine.describe(),
            "isolation": (
                "one container per warm worker; per run a forked harness (tests) and per pass a program "
                "process (candidate) forked from a zygote, under distinct uids"
            ),
            "hardening": [
                "network none",
                "read-only root",
                f"tmpfs /tmp {config.tmp_size_mb} MB, /dev/shm {config.shm_size_mb} MB "
                "(the program's files removed per pass)",
                "SysV IPC objects removed per pass",
                "worker root with only " + ", ".join(WORKER_CAPABILITIES),
                "no-new-privileges",
                "default seccomp (+ the program filter)",
                f"program uid {program_uid}+2*slot, harness uid {harness_uid}+2*slot",
                f"memory {config.memory_mb} MB",
                f"pids {config.pids_limit}",
                f"cpus {config.cpus:g}",
            ],
            "program_uid": f"{program_uid}+2*slot",
            "harness_uid": f"{harness_uid}+2*slot",
            "workers": self.workers,
            "pool_id": self.pool_id,
            "pool": pool,
            **self.pool_state(),
        }

    def close(self) -> None:
        self._release()
