"""Joining a Ray cluster, or starting a local Ray instance that stays on loopback."""

from __future__ import annotations

import os
import sys
from pathlib import Path
from typing import Any

LOCAL_OBJECT_STORE_BYTES = 256 * 1024 * 1024  # task parts and results are small


def quiet_environment() -> None:
    """For processes that start Ray themselves: no usage reports; nodes bind 127.0.0.1 (Ray otherwise
    resolves "localhost" to the machine's outward address; a local instance needs no network); and
    Ray's workers import this very codegym (a source checkout may not be the installed one)."""
    os.environ.setdefault("RAY_USAGE_STATS_ENABLED", "0")
    os.environ.setdefault("RAY_ENABLE_WINDOWS_OR_OSX_CLUSTER", "0")
    if "ray._private.ray_constants" in sys.modules:  # read at import time: too late for the variable
        sys.modules["ray._private.ray_constants"].ENABLE_RAY_CLUSTER = False
    source_root = str(Path(__file__).resolve().parents[3])
    paths = [p for p in os.environ.get("PYTHONPATH", "").split(os.pathsep) if p]
    if source_root not in paths:
        os.environ["PYTHONPATH"] = os.pathsep.join([source_root, *paths])


def connect(address: str | None, namespace: str) -> bool:
    """Make sure this process is connected to Ray; True when this call connected it (and so should
    disconnect it on close). `None` starts a local instance, `auto` joins the running cluster."""
    import ray

    if ray.is_initialized():
        return False
    options: dict[str, Any] = {"namespace": namespace, "log_to_driver": False, "configure_logging": False}
    if address is None:
        quiet_environment()
        options.update(
            include_dashboard=False,
            _node_ip_address="127.0.0.1",
            object_store_memory=LOCAL_OBJECT_STORE_BYTES,
        )
        ray.init(**options)
    else:
        ray.init(address=address, **options)
    return True
