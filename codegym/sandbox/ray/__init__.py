"""The `ray` sandbox backend: executions spread over sandbox actors on a Ray cluster's nodes, each
hosting an ordinary local (or Docker) pool. `RayBackend` is imported lazily: Ray loads only when used."""

from __future__ import annotations

from typing import Any

from codegym.sandbox.ray.config import RaySandboxConfig

__all__ = ["RayBackend", "RaySandboxConfig"]


def __getattr__(name: str) -> Any:
    if name == "RayBackend":
        from codegym.sandbox.ray.backend import RayBackend

        return RayBackend
    raise AttributeError(name)
