"""The docker sandbox backend: a warm pool of hardened containers (see `backend.py` for what it
isolates), the sandbox image's recipes and builds (`images.py`), and leftover cleanup (`cleanup.py`).

Talks to the engine through the docker SDK (docker-py), never the docker CLI.
"""

from codegym.sandbox.docker.backend import DockerBackend
from codegym.sandbox.docker.cleanup import CleanupReport, cleanup_containers
from codegym.sandbox.docker.config import DockerSandboxConfig
from codegym.sandbox.docker.engine import Engine
from codegym.sandbox.docker.images import BuildOutcome, build_image, default_image_reference, image_status

__all__ = [
    "BuildOutcome",
    "CleanupReport",
    "DockerBackend",
    "DockerSandboxConfig",
    "Engine",
    "build_image",
    "cleanup_containers",
    "default_image_reference",
    "image_status",
]
