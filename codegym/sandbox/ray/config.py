"""Settings of the `ray` backend (`sandbox: {backend: ray, ...}` in a training config, or keyword
arguments of `RayBackend`). Validated on construction; errors name the field."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from typing import Any

INNER_BACKENDS = ("local", "docker")


@dataclass(frozen=True)
class RaySandboxConfig:
    address: str | None = field(
        default=None,
        metadata={
            "help": "Ray cluster to use: null starts a local Ray instance (loopback only), `auto` joins "
            "the running cluster (RAY_ADDRESS or `ray start`), `ray://host:port` or `host:port` joins "
            "that one."
        },
    )
    actors_per_node: int = field(default=1, metadata={"help": "Sandbox actors on each matching node."})
    workers_per_actor: int = field(
        default=0,
        metadata={"help": "Warm sandbox workers per actor (0 = the node's default: one per usable CPU)."},
    )
    inner_backend: str = field(
        default="local", metadata={"help": "Sandbox each actor hosts on its node: local or docker."}
    )
    num_cpus_per_actor: float = field(
        default=1.0,
        metadata={"help": "CPUs each actor reserves in Ray's scheduler (its workers are processes outside)."},
    )
    node_resources: Mapping[str, float] = field(
        default_factory=dict,
        metadata={"help": "Custom Ray resources an actor needs, e.g. {judge: 1}: only nodes offering them."},
    )
    node_labels: Mapping[str, str] = field(
        default_factory=dict,
        metadata={"help": "Node labels an actor's node must have, e.g. {role: judge} (ray start --labels)."},
    )
    max_inflight_per_actor: int = field(
        default=0,
        metadata={"help": "Requests sent to one actor and not yet answered (0 = twice its workers)."},
    )
    batch_size: int = field(
        default=0,
        metadata={"help": "Requests per actor call (0 = half the actor's workers, at least 1)."},
    )
    max_retries: int = field(
        default=2,
        metadata={"help": "Retries of a request on another actor after its actor or node died."},
    )
    actor_start_timeout_s: float = field(
        default=120.0, metadata={"help": "Time an actor has to start its sandbox before it is given up."}
    )
    namespace: str = field(default="codegym", metadata={"help": "Ray namespace of the sandbox actors."})
    inner_options: Mapping[str, Any] = field(
        default_factory=dict,
        metadata={"help": "Options of each actor's inner backend (e.g. {isolation: bwrap} or {image: ...})."},
    )

    def __post_init__(self) -> None:
        if self.address is not None and not isinstance(self.address, str):
            raise ValueError(f"sandbox.address must be null, auto or host:port, got {self.address!r}")
        for name in ("actors_per_node",):
            if getattr(self, name) < 1:
                raise ValueError(f"sandbox.{name} must be >= 1, got {getattr(self, name)}")
        for name in ("workers_per_actor", "max_inflight_per_actor", "batch_size", "max_retries"):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 0:
                raise ValueError(f"sandbox.{name} must be an integer >= 0, got {value!r}")
        if self.inner_backend not in INNER_BACKENDS:
            raise ValueError(
                f"sandbox.inner_backend must be one of {INNER_BACKENDS}, got {self.inner_backend!r}"
            )
        if self.num_cpus_per_actor < 0:
            raise ValueError(f"sandbox.num_cpus_per_actor must be >= 0, got {self.num_cpus_per_actor}")
        if self.actor_start_timeout_s <= 0:
            raise ValueError(f"sandbox.actor_start_timeout_s must be > 0, got {self.actor_start_timeout_s}")
        for key, amount in self.node_resources.items():
            if not isinstance(amount, (int, float)) or amount <= 0:
                raise ValueError(f"sandbox.node_resources.{key} must be a positive number, got {amount!r}")
        object.__setattr__(self, "node_resources", dict(self.node_resources))
        object.__setattr__(self, "node_labels", {str(k): str(v) for k, v in self.node_labels.items()})
        object.__setattr__(self, "inner_options", dict(self.inner_options))

    @classmethod
    def split_options(cls, options: Mapping[str, Any]) -> tuple[dict[str, Any], dict[str, Any]]:
        """Split keyword options into this config's fields and the rest (each actor's inner backend's)."""
        known = {f.name for f in fields(cls)}
        mine = {k: v for k, v in options.items() if k in known}
        rest = {k: v for k, v in options.items() if k not in known}
        return mine, rest
