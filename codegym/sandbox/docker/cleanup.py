"""Labels on every container we create, and removing the ones left behind.

A container is labelled with its pool and its owner (host, PID namespace, pid and start time of
the process that made it). A pool removes its own containers on close; `codegym sandbox cleanup`
and every new docker backend remove those whose owner process is gone (e.g. after SIGKILL), and
those of owners it cannot see (another PID namespace) once they have been stopped for a minute;
`everything=True` removes all.
"""

from __future__ import annotations

import contextlib
import os
import socket
from dataclasses import dataclass, field
from datetime import datetime, timezone

from docker.errors import DockerException, NotFound

from codegym.sandbox.docker.config import LABEL_OWNER, LABEL_POOL, LABEL_SANDBOX
from codegym.sandbox.docker.engine import UNREACHABLE, Engine

STALE_AFTER_S = 60


def _start_time(pid: int) -> str | None:
    try:
        stat = open(f"/proc/{pid}/stat").read()  # noqa: SIM115 - tiny read
    except OSError:
        return None
    return stat.rsplit(")", 1)[1].split()[19]  # field 22, counted after the command name


def owner_label(pid: int | None = None) -> str:
    pid = pid or os.getpid()
    namespace = os.readlink("/proc/self/ns/pid")
    return f"{socket.gethostname()}|{namespace}|{pid}|{_start_time(pid)}"


def owner_alive(label: str) -> bool | None:
    """True/False when this process can tell whether the owner still runs; None when it cannot."""
    try:
        host, namespace, pid, started = label.split("|")
    except ValueError:
        return None
    if host != socket.gethostname() or namespace != os.readlink("/proc/self/ns/pid"):
        return None
    return _start_time(int(pid)) == started


def pool_labels(pool_id: str) -> dict[str, str]:
    return {LABEL_SANDBOX: "1", LABEL_POOL: pool_id, LABEL_OWNER: owner_label()}


@dataclass
class CleanupReport:
    removed: list[str] = field(default_factory=list)
    kept_alive_owner: list[str] = field(default_factory=list)
    kept_unknown_owner: list[str] = field(default_factory=list)


def labelled_containers(engine: Engine, pool_id: str | None = None) -> list[dict]:
    label = f"{LABEL_POOL}={pool_id}" if pool_id else LABEL_SANDBOX
    return list(engine.api.containers(all=True, filters={"label": label}))


def remove_containers(engine: Engine, ids: list[str]) -> list[str]:
    removed = []
    for container_id in ids:
        with contextlib.suppress(NotFound):
            engine.api.remove_container(container_id, force=True)
            removed.append(container_id)
    return removed


def cleanup_containers(
    engine: Engine, *, pool_id: str | None = None, everything: bool = False
) -> CleanupReport:
    """Remove a pool's containers (`pool_id`), leftovers of dead owners, or all (`everything`)."""
    report = CleanupReport()
    doomed = []
    for container in labelled_containers(engine, pool_id):
        container_id = container["Id"]
        alive = None if (pool_id or everything) else owner_alive(container["Labels"].get(LABEL_OWNER, ""))
        if pool_id or everything or alive is False or (alive is None and _long_stopped(engine, container)):
            doomed.append(container_id)
        elif alive:
            report.kept_alive_owner.append(container_id)
        else:
            report.kept_unknown_owner.append(container_id)
    report.removed = remove_containers(engine, doomed)
    return report


def _long_stopped(engine: Engine, container: dict) -> bool:
    """A container stopped for a while is a leftover whoever owned it: no pool uses a stopped
    container again (it replaces it on next use), and a pool's containers stop when it goes away."""
    if container.get("State") == "running":
        return False
    try:
        finished = engine.api.inspect_container(container["Id"])["State"].get("FinishedAt", "")
    except NotFound:
        return False
    try:
        stopped_at = datetime.fromisoformat(finished[:19]).replace(tzinfo=timezone.utc)
    except ValueError:
        return False
    return stopped_at.year > 1 and (datetime.now(timezone.utc) - stopped_at).total_seconds() > STALE_AFTER_S


def sweep_quietly(engine: Engine, *, pool_id: str | None = None) -> int:
    """Best-effort cleanup for close()/start-up: never raises (the engine may be down)."""
    try:
        return len(cleanup_containers(engine, pool_id=pool_id).removed)
    except (DockerException, *UNREACHABLE):
        return 0
