"""The `docker` backend: a warm pool of long-lived, hardened containers.

Each container runs the same warm worker as the local backend (`inside/worker.py`) as its main
process (PID 1) under its own unprivileged uid; executions are dispatched into the pool over the
containers' attach sockets and each is a fresh fork, not a fresh container.

What it isolates, on top of what the worker does per run (see `inside/worker.py`):
* from the host: separate PID, mount, IPC, UTS and network namespaces (network `none`: not even
  host loopback), a read-only root filesystem, the engine's default seccomp profile, all
  capabilities dropped, no-new-privileges, no setuid binaries in the image, no docker socket;
* resources, per container: memory cgroup (no swap), pids cgroup, CPU quota, size-capped tmpfs
  for /tmp (scratch) and /dev/shm, which the worker empties after every run;
* between runs and pools: a distinct uid per container (per-uid process limits are not shared),
  every process of a run SIGKILLed when it ends, and a misbehaving container replaced.

What it does not: kernel exploits (containers share the host kernel; use a VM runtime such as
gVisor or Kata via the engine for that), timing side channels, and SysV IPC objects (their
namespace lives as long as the container). Its own failures — engine down or restarting,
a container killed or removed from outside — come back as retried `sandbox_error`s.
"""

from __future__ import annotations

import json
import os
import secrets
import uuid
import weakref
from dataclasses import asdict
from typing import Any

from docker.types import LogConfig

from codegym.sandbox.backend import PooledBackend, SandboxUnavailable
from codegym.sandbox.docker.cleanup import pool_labels, sweep_quietly
from codegym.sandbox.docker.config import (
    CONTAINER_ENV,
    IMAGE_INSIDE_DIR,
    IMAGE_PYTHON,
    SCRATCH_ROOT,
    WRITABLE_DIRS,
    DockerSandboxConfig,
)
from codegym.sandbox.docker.engine import Engine
from codegym.sandbox.docker.images import default_image_reference
from codegym.sandbox.docker.transport import ContainerTransport
from codegym.sandbox.pool import WorkerPool


def _release(pool: WorkerPool, engine: Engine, pool_id: str) -> None:
    """Stop the workers and remove every container of the pool (also those we lost track of)."""
    pool.close()
    sweep_quietly(engine, pool_id=pool_id)
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
        self.workers = self.config.workers or (os.cpu_count() or 1)
        self.pool_id = uuid.uuid4().hex[:12]
        # Random, so concurrent pools (and the local backend's uids) don't share per-uid limits.
        self.uid_base = self.config.uid_base or 300_000 + secrets.randbelow(100_000) * 64
        self._host_pid_namespace = os.readlink("/proc/self/ns/pid")
        self._labels = pool_labels(self.pool_id)
        self._transports: dict[int, ContainerTransport] = {}
        sweep_quietly(self.engine)  # containers whose owner died without cleaning up (SIGKILL)
        self.pool = WorkerPool(
            self.workers,
            transport=self._transport,
            backend_name=self.name,
            image=self.image,
            start_timeout_s=self.config.start_timeout_s,
            max_retries=self.config.max_retries,
            scratch_dir=f"{SCRATCH_ROOT}/run",  # the image's Python ignores the bytecode if its magic differs
        )
        # Runs at close() or, if nobody closes us, at interpreter exit: no container outlives us.
        self._release = weakref.finalize(self, _release, self.pool, self.engine, self.pool_id)

    @property
    def image(self) -> str:
        return f"{self.reference}@{self.image_id}"

    def _transport(self, slot: int) -> ContainerTransport:
        transport = ContainerTransport(
            self.engine, slot, self._create_options, engine_wait_s=self.config.engine_wait_s
        )
        self._transports[slot] = transport
        return transport

    def _create_options(self, slot: int) -> dict[str, Any]:
        """Everything `create_container` gets: the hardening lives here."""
        config = self.config
        uid = self.uid_base + slot
        worker_config = {
            "slot": slot,
            "sandbox_uid": None,  # programs run under the container's uid; the worker is PID 1
            "scratch_root": SCRATCH_ROOT,
            "host_pid_namespace": self._host_pid_namespace,
            "preload": list(config.preload),
            "mounts": None,
            "wipe": list(WRITABLE_DIRS),
        }
        host_config = self.engine.api.create_host_config(
            network_mode="none",
            read_only=True,
            tmpfs={"/tmp": f"rw,nosuid,nodev,size={config.tmp_size_mb}m,mode=1777"},
            shm_size=f"{config.shm_size_mb}m",
            ipc_mode="private",
            cap_drop=["ALL"],
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
            "entrypoint": [IMAGE_PYTHON, "-I", "-B", f"{IMAGE_INSIDE_DIR}/worker.py"],
            "command": [json.dumps(worker_config)],
            "user": f"{uid}:{uid}",
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
            pool.append(
                {
                    "slot": worker.slot,
                    "container": transport.container_id[:12] if transport else "",
                    "pid": worker.pid,
                    "uid": self.uid_base + worker.slot,
                    "alive": bool(transport and transport.alive),
                    **{k: v for k, v in worker.details.items() if k not in ("pid", "uid")},
                }
            )
        return {
            "backend": self.name,
            "image": self.image,
            "image_reference": self.reference,
            "image_id": self.image_id,
            **self.engine.describe(),
            "isolation": "one container per warm worker; a fresh fork per execution",
            "hardening": [
                "network none",
                "read-only root",
                f"tmpfs /tmp {config.tmp_size_mb} MB (wiped per run)",
                "cap_drop ALL",
                "no-new-privileges",
                "default seccomp",
                f"uid {self.uid_base}+slot",
                f"memory {config.memory_mb} MB",
                f"pids {config.pids_limit}",
                f"cpus {config.cpus:g}",
            ],
            "workers": self.workers,
            "pool_id": self.pool_id,
            "pool": pool,
            **self.pool_state(),
        }

    def close(self) -> None:
        self._release()
