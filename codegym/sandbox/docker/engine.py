"""The connection to the Docker engine (docker SDK), and waiting for it when it restarts."""

from __future__ import annotations

import time
from typing import Any

import docker
import requests
from docker.errors import DockerException

from codegym.errors import Setting
from codegym.sandbox.backend import SandboxUnavailable

API_TIMEOUT_S = 60
ENGINE_HINT = ("start it with scripts/ensure_docker.sh (or `dockerd &`), or set ", Setting("docker_host"))
# Errors that mean "the engine did not answer" rather than "the engine said no".
UNREACHABLE = (requests.exceptions.ConnectionError, requests.exceptions.Timeout, ConnectionError, OSError)


class Engine:
    """A docker SDK client plus the few engine-level questions the backend asks."""

    def __init__(self, docker_host: str = "", *, timeout_s: int = API_TIMEOUT_S) -> None:
        try:
            if docker_host:
                self.client = docker.DockerClient(base_url=docker_host, timeout=timeout_s)
            else:
                self.client = docker.from_env(timeout=timeout_s)
        except DockerException as exc:
            raise SandboxUnavailable(f"cannot reach the Docker engine: {exc}; ", *ENGINE_HINT) from exc
        self.api = self.client.api

    def ping(self) -> bool:
        try:
            return bool(self.api.ping())
        except (DockerException, *UNREACHABLE):
            return False

    def wait_until_up(self, seconds: float) -> bool:
        """True once the engine answers; polls for up to `seconds` (it may be restarting)."""
        deadline = time.monotonic() + seconds
        delay = 0.1
        while True:
            if self.ping():
                return True
            if time.monotonic() >= deadline:
                return False
            time.sleep(min(delay, max(0.0, deadline - time.monotonic())))
            delay = min(delay * 2, 1.0)

    def image_id(self, reference: str) -> str | None:
        """The local image's id (its content digest), or None when it is not present."""
        try:
            return str(self.api.inspect_image(reference)["Id"])
        except docker.errors.ImageNotFound:
            return None

    def describe(self) -> dict[str, Any]:
        """Engine facts for `sandbox info` and run records."""
        try:
            info = self.client.info()
            version = self.client.version()
        except (DockerException, *UNREACHABLE) as exc:
            return {"engine": f"unreachable: {exc}"}
        return {
            "engine": f"Docker {version.get('Version')} (API {version.get('ApiVersion')})",
            "engine_os": info.get("OperatingSystem"),
            "kernel": info.get("KernelVersion"),
            "storage_driver": info.get("Driver"),
            "cgroup": f"v{info.get('CgroupVersion', '1')} ({info.get('CgroupDriver')})",
            "security_options": info.get("SecurityOptions", []),
        }

    def close(self) -> None:
        self.client.close()
