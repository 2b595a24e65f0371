#!/usr/bin/env bash
# Sets up a fresh machine for codegym: system packages, then .venv with torch (CPU build) and the
# project with its training and test extras. Idempotent: re-running only installs what is missing.
set -euo pipefail
cd "$(dirname "$0")/.."

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi

# bubblewrap: the local sandbox's namespaces; redis-server: the reward cache's Redis tests;
# chromium + chromium-driver: the HTML leaderboard's headless-browser test.
APT_PACKAGES=(bubblewrap redis-server chromium chromium-driver)
missing=()
for package in "${APT_PACKAGES[@]}"; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

# the Docker engine (docker.io, debootstrap for offline images); dockerd is started if it is not running
./scripts/ensure_docker.sh

if [ ! -x .venv/bin/python ]; then
  python3 -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
# torch first, pinned, so the CPU build on local disk is used and nothing else pulls a CUDA build.
.venv/bin/python -m pip install -q "torch==2.13.0"
.venv/bin/python -m pip install -q -e ".[train,test]"
# an editable install compiles nothing: without this every CLI start compiles what it imports
# (~40 modules) whenever bytecode writing is off (PYTHONDONTWRITEBYTECODE, a read-only checkout)
.venv/bin/python -m compileall -q codegym
echo "setup: done ($(.venv/bin/codegym --version 2>/dev/null || echo codegym installed))"
