"""The sandbox image and the CLI around it: content-hash tags, idempotent builds, the layout both
build paths share, `sandbox build|image|info|cleanup`, and `judge --backend docker`."""

from __future__ import annotations

import json
import re
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from codegym.sandbox.docker import build_image, default_image_reference, images
from codegym.sandbox.docker.cleanup import labelled_containers
from codegym.sandbox.docker.config import (
    HARNESS_SITE,
    IMAGE_DEFAULT_UID,
    IMAGE_INSIDE_DIR,
    IMAGE_PYTHON,
    PROGRAM_SITE,
)
from codegym.sandbox.inside import packages
from tests.conftest import REPO_ROOT
from tests.sandbox.docker_support import docker_engine, sandbox_image

pytestmark = pytest.mark.docker

CODEGYM = str(Path(sys.executable).with_name("codegym"))
# python3-pytest pulls in the rest; named in both recipes so that both provably agree. python3-attr:
# bookworm's pytest 7.2 imports attrs.
PACKAGES = (
    "python3",
    "python3-pytest",
    "python3-coverage",
    "python3-pluggy",
    "python3-iniconfig",
    "python3-packaging",
    "python3-py",
    "python3-attr",
)


def codegym(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    return subprocess.run([CODEGYM, *args], capture_output=True, text=True, timeout=timeout, cwd=REPO_ROOT)


def test_recipe_hash_follows_content(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    copy = tmp_path / "sandbox_images"
    shutil.copytree(images.images_dir(), copy)
    inside = tmp_path / "inside"
    shutil.copytree(images.INSIDE_DIR, inside, ignore=shutil.ignore_patterns("__pycache__"))
    monkeypatch.setattr(images, "images_dir", lambda: copy)
    monkeypatch.setattr(images, "INSIDE_DIR", inside)
    original = images.recipe()
    assert original.reference == default_image_reference()
    (inside / "worker.py").write_text((inside / "worker.py").read_text() + "\n# changed\n")
    changed_runner = images.recipe()
    assert (
        changed_runner.base_hash == original.base_hash
        and changed_runner.runtime_hash != original.runtime_hash
    )
    (copy / "base" / "Dockerfile").write_text((copy / "base" / "Dockerfile").read_text() + "\n")
    changed_base = images.recipe()
    assert changed_base.base_hash != original.base_hash
    assert changed_base.runtime_hash not in (original.runtime_hash, changed_runner.runtime_hash)
    assert re.fullmatch(r"codegym-sandbox:[0-9a-f]{12}", changed_base.reference)


def test_both_base_recipes_install_the_same_packages() -> None:
    directory = images.images_dir()
    dockerfile = (directory / "base" / "Dockerfile").read_text()
    script = (directory / "base" / "debootstrap.sh").read_text()
    assert "FROM debian:bookworm-slim" in dockerfile and "bookworm" in script
    assert f"packages={','.join(PACKAGES)}" in script
    assert re.search(r"install[^\n]*\n\s*" + r"\s+".join(PACKAGES), dockerfile)


def test_debian_mirror_is_read_from_apt_sources(tmp_path: Path) -> None:
    deb822 = tmp_path / "debian.sources"
    deb822.write_text(
        "Types: deb\nURIs: http://mirror.example/debian-security\nSuites: bookworm-security\n\n"
        "Types: deb\nURIs: http://mirror.example/debian\nSuites: bookworm bookworm-updates\nComponents: main\n"
    )
    one_line = tmp_path / "sources.list"
    one_line.write_text("# comment\ndeb [arch=amd64] http://other.example/debian bookworm main\n")
    assert images.detect_debian_mirror([deb822]) == "http://mirror.example/debian"
    assert images.detect_debian_mirror([one_line]) == "http://other.example/debian"
    assert images.detect_debian_mirror([tmp_path / "missing"]) == images.DEFAULT_MIRROR


def test_build_is_idempotent_and_cached_by_content_hash() -> None:
    reference = sandbox_image()
    engine = docker_engine()
    try:
        started = time.monotonic()
        outcome = build_image(engine, progress=lambda line: None)
        assert not outcome.built and outcome.reference == reference
        assert time.monotonic() - started < 10
        assert outcome.image_id == engine.image_id(reference)
    finally:
        engine.close()
    completed = codegym("sandbox", "build")
    assert completed.returncode == 0, completed.stdout + completed.stderr
    assert "up to date" in completed.stdout


def test_recipe_hash_covers_the_offline_image_config(monkeypatch: pytest.MonkeyPatch) -> None:
    original = images.recipe()
    monkeypatch.setattr(images, "IMPORT_CHANGES", [*images.IMPORT_CHANGES, "ENV X=1"])
    changed = images.recipe()
    assert changed.base_hash != original.base_hash and changed.runtime_hash != original.runtime_hash


def test_image_layout_is_what_the_backend_relies_on() -> None:
    engine = docker_engine()
    # Run as the worker runs it (python3 -I -S: no site packages) under the image's default user.
    probe = (
        "import importlib.util, json, os, sys\n"
        "def importable(site, name):\n"
        "    sys.path.append(site)\n"
        "    try:\n"
        "        return importlib.util.find_spec(name) is not None\n"
        "    finally:\n"
        "        sys.path.remove(site)\n"
        "        sys.path_importer_cache.clear()\n"
        "setuid = [os.path.join(d, f) for d, _, fs in os.walk('/usr') for f in fs\n"
        "          if os.path.isfile(os.path.join(d, f)) and os.stat(os.path.join(d, f)).st_mode & 0o6000]\n"
        "print(json.dumps({'python': sys.executable, 'version': list(sys.version_info[:2]),\n"
        f"  'inside': sorted(os.listdir({IMAGE_INSIDE_DIR!r})), 'uid': os.getuid(), 'setuid': setuid,\n"
        "  'site_on_path': any('-packages' in p for p in sys.path),\n"
        f"  'harness': sorted(os.listdir({HARNESS_SITE!r})), 'program': sorted(os.listdir({PROGRAM_SITE!r})),\n"
        f"  'harness_pytest': importable({HARNESS_SITE!r}, 'pytest'),\n"
        f"  'program_pytest': importable({PROGRAM_SITE!r}, 'pytest'),\n"
        f"  'program_coverage': importable({PROGRAM_SITE!r}, 'coverage'),\n"
        "  'writable': [p for p in ('/opt/codegym', '/usr', '/etc') if os.access(p, os.W_OK)],\n"
        "  'sandbox_user': any(line.startswith('sandbox:') for line in open('/etc/passwd'))}))\n"
    )
    try:
        output = engine.client.containers.run(
            sandbox_image(),
            ["-c", probe],
            entrypoint=[IMAGE_PYTHON, "-I", "-S"],
            network_disabled=True,
            remove=True,
        ).decode()
    finally:
        engine.close()
    layout = json.loads(output)
    assert layout["python"] == IMAGE_PYTHON and layout["version"] == [3, 11]
    for name in (
        "boot.py",
        "worker.py",
        "zygote.py",
        "harness.py",
        "program.py",
        "packages.py",
        "__pycache__",
    ):
        assert name in layout["inside"], layout["inside"]
    assert layout["uid"] == IMAGE_DEFAULT_UID and layout["setuid"] == [] and not layout["sandbox_user"]
    assert not layout["site_on_path"] and layout["writable"] == []
    # the harness's site: pytest and what bookworm's pytest imports, and coverage; the program's: coverage
    assert {"pytest", "_pytest", "pluggy", "iniconfig", "packaging", "py", "attr", "coverage"} <= set(
        layout["harness"]
    )
    assert set(layout["harness"]) - {"attr"} <= set(packages.HARNESS_PACKAGES)
    assert layout["program"] == ["coverage"] and list(packages.PROGRAM_PACKAGES) == ["coverage"]
    assert layout["harness_pytest"] and layout["program_coverage"] and not layout["program_pytest"]


def test_sandbox_image_prints_the_reference_last() -> None:
    sandbox_image()
    completed = codegym("sandbox", "image")
    assert completed.returncode == 0, completed.stderr
    lines = completed.stdout.strip().splitlines()
    assert lines[-1] == default_image_reference()
    assert any(line.startswith("present: sha256:") for line in lines[:-1])


def test_sandbox_info_shows_engine_image_digest_and_pool() -> None:
    reference = sandbox_image()
    completed = codegym("sandbox", "info", "--backend", "docker", "--workers", "2", "--json")
    assert completed.returncode == 0, completed.stderr
    data = json.loads(completed.stdout)
    assert data["backend"] == "docker" and data["engine"].startswith("Docker ")
    assert data["image"].startswith(f"{reference}@sha256:")
    assert [w["alive"] for w in data["pool"]] == [True, True]
    assert all(w["python"].startswith("3.11") and w["container"] for w in data["pool"])
    engine = docker_engine()
    try:
        assert labelled_containers(engine, data["pool_id"]) == []
    finally:
        engine.close()
    table = codegym("sandbox", "info", "--backend", "docker", "--workers", "1")
    assert table.returncode == 0 and "container" in table.stdout and "no-new-privileges" in table.stdout


@pytest.mark.slow
def test_judge_with_the_docker_backend_matches_the_local_backend(tmp_path: Path) -> None:
    sandbox_image()
    samples = REPO_ROOT / "tasks" / "_samples" / "humaneval_mixed.jsonl"
    rows = {}
    for name in ("local", "docker"):
        out = tmp_path / f"{name}.jsonl"
        completed = codegym(
            "judge", str(samples), "--pack", "humaneval", "--out", str(out), "--backend", name, "--no-reward"
        )
        assert completed.returncode == 0, completed.stdout + completed.stderr
        rows[name] = [json.loads(line) for line in out.read_text().splitlines()]
    verdict = ("task_id", "status", "passed", "tests_passed", "tests_total")
    assert [{k: r.get(k) for k in verdict} for r in rows["docker"]] == [
        {k: r.get(k) for k in verdict} for r in rows["local"]
    ]
    judged = [r for r in rows["docker"] if r["status"] != "invalid_input"]
    assert judged and all(r["backend"] == "docker" and "@sha256:" in r["image"] for r in judged)
