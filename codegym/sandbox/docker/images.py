"""The sandbox image: its recipe's content hash, and building it with or without a registry.

Two stages, each tagged by the hash of what defines it, so `build_image` is idempotent (an image
whose tag exists is never rebuilt) and a changed runner gives a new tag:

* base `codegym-sandbox-base:<hash12>`: Debian bookworm + python3, pytest (and what it imports),
  coverage. Made either from the registry (`sandbox_images/base/Dockerfile`, FROM
  debian:bookworm-slim) or offline (`sandbox_images/base/debootstrap.sh` from a Debian mirror, then
  `docker import` with IMPORT_CHANGES); its hash covers every file of base/ and IMPORT_CHANGES;
* runtime `codegym-sandbox:<hash12>`: the base + the in-sandbox code (codegym/sandbox/inside/*.py)
  and the harness's and the program's site directories made from it
  (`sandbox_images/runtime/Dockerfile`); its hash covers the base's hash, that Dockerfile and every
  file of the in-sandbox code.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import io
import os
import re
import shutil
import subprocess
import tarfile
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import docker

from codegym.sandbox.backend import SandboxUnavailable
from codegym.sandbox.docker.config import (
    BASE_REPOSITORY,
    IMAGE_REPOSITORY,
    LABEL_BASE_SOURCE,
    LABEL_RECIPE,
)
from codegym.sandbox.docker.engine import Engine
from codegym.sandbox.local import INSIDE_DIR

BaseSource = Literal["auto", "registry", "debootstrap"]
Progress = Callable[[str], None]
REGISTRY_BASE = ("debian", "bookworm-slim")
DEFAULT_MIRROR = "http://deb.debian.org/debian"
SHOWN_DEBOOTSTRAP_LINES = ("debootstrap:", "I: Retrieving Packages", "I: Installing core", "I: Base system")
IMPORT_CHANGES = [
    "ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin",
    'CMD ["/bin/bash"]',
]


class ImageBuildError(SandboxUnavailable):
    """The image could not be built; the message says which step failed and why."""


def images_dir() -> Path:
    """sandbox_images/: bundled into the package when installed, else at the repository root."""
    package = Path(__file__).resolve().parents[2]
    for candidate in (package / "_bundled_sandbox_images", package.parent / "sandbox_images"):
        if (candidate / "runtime" / "Dockerfile").is_file():
            return candidate
    raise SandboxUnavailable(
        f"sandbox image recipes not found (looked in {package.parent / 'sandbox_images'})"
    )


def _digest(parts: Iterable[tuple[str, bytes]]) -> str:
    digest = hashlib.sha256()
    for name, content in sorted(parts):
        digest.update(f"{name}\0{len(content)}\0".encode())
        digest.update(content)
    return digest.hexdigest()


def _inside_files() -> list[tuple[str, bytes]]:
    return [(f"codegym/sandbox/inside/{p.name}", p.read_bytes()) for p in sorted(INSIDE_DIR.glob("*.py"))]


@dataclass(frozen=True)
class Recipe:
    """What the images are made of, and the tags that content hashes to."""

    directory: Path
    base_hash: str
    runtime_hash: str

    @property
    def base_reference(self) -> str:
        return f"{BASE_REPOSITORY}:{self.base_hash[:12]}"

    @property
    def reference(self) -> str:
        return f"{IMAGE_REPOSITORY}:{self.runtime_hash[:12]}"


def recipe() -> Recipe:
    directory = images_dir()
    base = _digest(
        [
            *((f"base/{p.name}", p.read_bytes()) for p in (directory / "base").iterdir() if p.is_file()),
            ("import-changes", "\n".join(IMPORT_CHANGES).encode()),  # the debootstrap path's image config
        ]
    )
    dockerfile = (directory / "runtime" / "Dockerfile").read_bytes()
    runtime = _digest([("base", base.encode()), ("runtime/Dockerfile", dockerfile), *_inside_files()])
    return Recipe(directory, base, runtime)


def default_image_reference() -> str:
    """The image the docker backend uses unless told otherwise: this checkout's recipe hash."""
    return recipe().reference


@dataclass(frozen=True)
class BuildOutcome:
    reference: str
    image_id: str
    built: bool
    base_source: str


def detect_debian_mirror(sources: Iterable[Path] = ()) -> str:
    """The host's Debian mirror for bookworm (apt inside debootstrap uses the same one)."""
    paths = list(sources) or [
        Path("/etc/apt/sources.list"),
        *sorted(Path("/etc/apt/sources.list.d").glob("*")),
    ]
    for path in paths:
        try:
            text = path.read_text(errors="replace")
        except OSError:
            continue
        if path.suffix == ".sources":  # deb822 stanzas
            for stanza in re.split(r"\n\s*\n", text):
                fields = dict(re.findall(r"^(\w[\w-]*):\s*(.*)$", stanza, re.M))
                if "bookworm" in fields.get("Suites", "").split() and fields.get("URIs"):
                    return fields["URIs"].split()[0]
        for line in text.splitlines():
            match = re.match(r"\s*deb\s+(?:\[[^\]]*\]\s+)?(\S+)\s+bookworm\s", line + " ")
            if match:
                return match.group(1)
    return DEFAULT_MIRROR


@contextlib.contextmanager
def _build_lock() -> Iterator[None]:
    """One build at a time on this machine (a test session and a CLI call may race)."""
    path = Path(tempfile.gettempdir()) / "codegym-sandbox-build.lock"
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


def _stream_build(engine: Engine, context: bytes, progress: Progress, **options: object) -> str:
    """Run one docker build from an in-memory tar context, echoing its steps; returns the image id."""
    image_id = ""
    for event in engine.api.build(
        fileobj=io.BytesIO(context), custom_context=True, rm=True, forcerm=True, decode=True, **options
    ):
        if "error" in event:
            raise ImageBuildError(f"docker build failed: {event['error'].strip()}")
        line = str(event.get("stream", "")).rstrip()
        if line.startswith("Step ") or line.startswith("Successfully"):
            progress(f"  {line}")
        image_id = (event.get("aux") or {}).get("ID", image_id)
    return image_id


def _tar(files: Iterable[tuple[str, bytes]]) -> bytes:
    buffer = io.BytesIO()
    with tarfile.open(fileobj=buffer, mode="w") as tar:
        for name, content in files:
            info = tarfile.TarInfo(name)
            info.size, info.mode, info.mtime = len(content), 0o644, 0
            tar.addfile(info, io.BytesIO(content))
    return buffer.getvalue()


def _registry_reachable(engine: Engine, progress: Progress) -> bool:
    name, tag = REGISTRY_BASE
    if engine.image_id(f"{name}:{tag}"):
        return True
    progress(f"base: trying the registry ({name}:{tag})")
    try:
        engine.api.pull(name, tag=tag)
    except docker.errors.DockerException as exc:
        progress(f"base: registry unreachable ({str(exc).splitlines()[0][:160]})")
        return False
    return True


def _build_base_registry(engine: Engine, rec: Recipe, progress: Progress) -> None:
    progress(f"base: docker build {rec.base_reference} FROM {':'.join(REGISTRY_BASE)}")
    context = _tar([("Dockerfile", (rec.directory / "base" / "Dockerfile").read_bytes())])
    _stream_build(engine, context, progress, tag=rec.base_reference, labels={LABEL_BASE_SOURCE: "registry"})


def _build_base_debootstrap(engine: Engine, rec: Recipe, mirror: str | None, progress: Progress) -> None:
    if shutil.which("debootstrap") is None:
        raise ImageBuildError("the offline base needs debootstrap: apt-get install debootstrap")
    if os.geteuid() != 0:
        raise ImageBuildError("the offline base (debootstrap) must be built as root")
    mirror = mirror or detect_debian_mirror()
    script = rec.directory / "base" / "debootstrap.sh"
    with tempfile.TemporaryDirectory(prefix="codegym-base-", dir="/var/tmp") as work:
        tar_path = Path(work) / "rootfs.tar"
        process = subprocess.Popen(
            ["sh", str(script), str(tar_path), mirror],
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            errors="replace",
        )
        assert process.stdout is not None
        tail: list[str] = []
        for line in process.stdout:
            tail = [*tail[-20:], line.rstrip()]
            if line.startswith(
                ("debootstrap:", "I: Retrieving Packages", "I: Installing core", "I: Base system")
            ):
                progress(f"  {line.rstrip()}")
        if process.wait() != 0:
            raise ImageBuildError("debootstrap failed:\n" + "\n".join(tail))
        progress(f"base: docker import {rec.base_reference}")
        repository, tag = rec.base_reference.split(":")
        engine.api.import_image_from_file(
            str(tar_path),
            repository=repository,
            tag=tag,
            changes=[*IMPORT_CHANGES, f"LABEL {LABEL_BASE_SOURCE}=debootstrap"],
        )
    if not engine.image_id(rec.base_reference):
        raise ImageBuildError(f"docker import did not produce {rec.base_reference}")


def build_image(
    engine: Engine,
    *,
    base: BaseSource = "auto",
    mirror: str | None = None,
    force: bool = False,
    progress: Progress = print,
) -> BuildOutcome:
    """Build the runtime image (and its base) unless the content-hash tags already exist."""
    rec = recipe()
    with _build_lock():
        existing = None if force else engine.image_id(rec.reference)
        if existing:
            progress(f"image {rec.reference} is up to date ({existing[:19]})")
            return BuildOutcome(rec.reference, existing, False, _base_source(engine, rec.reference))
        if force or not engine.image_id(rec.base_reference):
            source = base
            if source == "auto":
                source = "registry" if _registry_reachable(engine, progress) else "debootstrap"
            if source == "registry":
                _build_base_registry(engine, rec, progress)
            else:
                _build_base_debootstrap(engine, rec, mirror, progress)
        else:
            progress(f"base {rec.base_reference} is up to date")
        progress(f"runtime: docker build {rec.reference}")
        context = _tar(
            [("Dockerfile", (rec.directory / "runtime" / "Dockerfile").read_bytes()), *_inside_files()]
        )
        _stream_build(
            engine,
            context,
            progress,
            tag=rec.reference,
            buildargs={"BASE_IMAGE": rec.base_reference, "RECIPE": rec.runtime_hash},
        )
        image_id = engine.image_id(rec.reference)
        if not image_id:
            raise ImageBuildError(f"docker build did not produce {rec.reference}")
        progress(f"built {rec.reference} ({image_id[:19]})")
        return BuildOutcome(rec.reference, image_id, True, _base_source(engine, rec.reference))


def _base_source(engine: Engine, reference: str) -> str:
    try:
        labels = engine.api.inspect_image(reference)["Config"].get("Labels") or {}
    except docker.errors.DockerException:
        return "unknown"
    return str(labels.get(LABEL_BASE_SOURCE, "unknown"))


def image_status(engine: Engine, reference: str) -> dict[str, object]:
    """What `sandbox image` / `sandbox info` show about an image reference."""
    image_id = engine.image_id(reference)
    if image_id is None:
        return {"reference": reference, "present": False}
    details = engine.api.inspect_image(reference)
    labels = details["Config"].get("Labels") or {}
    return {
        "reference": reference,
        "present": True,
        "id": image_id,
        "size_mb": round(details.get("Size", 0) / 1e6, 1),
        "created": details.get("Created"),
        "recipe": labels.get(LABEL_RECIPE),
        "base_source": labels.get(LABEL_BASE_SOURCE, "unknown"),
    }
