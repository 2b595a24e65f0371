"""Settings of `codegym serve`, validated on construction; errors name the setting."""

from __future__ import annotations

import ipaddress
import os
from dataclasses import dataclass, field
from pathlib import Path

from codegym.errors import BadValue, Setting


@dataclass(frozen=True)
class ServeConfig:
    host: str = field(default="127.0.0.1", metadata={"help": "Address to bind (loopback by default)."})
    port: int = field(default=8600, metadata={"help": "HTTP port."})
    min_replicas: int = field(default=1, metadata={"help": "Fewest judge replicas (Ray Serve autoscaling)."})
    max_replicas: int = field(default=2, metadata={"help": "Most judge replicas."})
    target_ongoing_requests: float = field(
        default=2.0, metadata={"help": "Queue depth per replica Ray Serve's autoscaler aims for."}
    )
    workers_per_replica: int = field(
        default=0, metadata={"help": "Sandbox workers per replica (0 = one per usable CPU of its node)."}
    )
    num_cpus_per_replica: float = field(default=1.0, metadata={"help": "CPUs a replica reserves in Ray."})
    cache: str = field(
        default="default",
        metadata={
            "help": "Reward cache: redis://... (shared by every replica and client), default, memory, off."
        },
    )
    reward_config: str | None = field(
        default=None, metadata={"help": "Reward YAML (default settings if unset)."}
    )
    tasks_dirs: tuple[str, ...] = field(default=(), metadata={"help": "Extra task-pack directories."})
    token_file: str | None = field(default=None, metadata={"help": "File holding the bearer token."})
    token_env: str = field(
        default="CODEGYM_SERVE_TOKEN", metadata={"help": "Environment variable holding the bearer token."}
    )
    max_body_bytes: int = field(default=8 * 1024 * 1024, metadata={"help": "Largest request body accepted."})
    max_items: int = field(default=4096, metadata={"help": "Most programs in one request."})
    address: str | None = field(
        default=None, metadata={"help": "Ray cluster (null: a local instance; auto: the running cluster)."}
    )

    def __post_init__(self) -> None:
        # BadValue: a user's mistake, one line from `codegym serve` (a plain ValueError is a bug)
        if not 0 < self.port < 65536:
            raise BadValue(Setting("port"), f" must be in 1..65535, got {self.port}")
        if self.min_replicas < 1 or self.max_replicas < self.min_replicas:
            raise BadValue(
                "serve replicas: need 1 <= ",
                Setting("min_replicas"),
                " <= ",
                Setting("max_replicas"),
                f", got {self.min_replicas}..{self.max_replicas}",
            )
        if self.max_body_bytes < 1024 or self.max_items < 1:
            raise BadValue("serve.max_body_bytes must be >= 1024 and serve.max_items >= 1")
        if self.token() is None and not self.loopback:
            raise BadValue(
                f"serve: binding {self.host} (not loopback) needs a bearer token: set {self.token_env} or ",
                Setting("token_file"),
                " (authentication is off only on loopback)",
            )

    @property
    def loopback(self) -> bool:
        if self.host == "localhost":
            return True
        try:
            return ipaddress.ip_address(self.host).is_loopback
        except ValueError:
            return False

    def token(self) -> str | None:
        if self.token_file:
            try:
                text = Path(self.token_file).read_text(encoding="utf-8").strip()
            except OSError as exc:
                raise ValueError(f"serve.token_file {self.token_file}: {exc.strerror}") from exc
            if not text:
                raise ValueError(f"serve.token_file {self.token_file} is empty")
            return text
        return os.environ.get(self.token_env) or None
