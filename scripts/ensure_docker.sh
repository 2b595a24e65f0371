#!/usr/bin/env bash
# Makes a Docker engine available for codegym's docker sandbox backend and its tests: installs
# docker.io (the engine) and debootstrap (the offline image build) with apt when missing, starts
# dockerd in the background when `docker info` fails, and waits until it answers.
# Idempotent; run as root (or with sudo). Needs no container registry.
#
#   ./scripts/ensure_docker.sh            wait up to 60 s for the engine
#   CODEGYM_DOCKERD_WAIT_S=120 ./scripts/ensure_docker.sh
set -euo pipefail

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
WAIT_S=${CODEGYM_DOCKERD_WAIT_S:-60}
LOG=/var/log/codegym-dockerd.log

missing=()
for package in docker.io debootstrap; do
  dpkg -s "$package" >/dev/null 2>&1 || missing+=("$package")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "ensure_docker: installing ${missing[*]}"
  $SUDO apt-get update -q
  DEBIAN_FRONTEND=noninteractive $SUDO apt-get install -y -q "${missing[@]}"
fi

engine_up() { $SUDO docker info >/dev/null 2>&1; }

if engine_up; then
  echo "ensure_docker: engine already running"
  exit 0
fi

# With systemd (a normal VM) the packaged service is the right way; without it (containers, CI
# sandboxes) start dockerd ourselves, detached so it outlives this script.
if [ -d /run/systemd/system ] && command -v systemctl >/dev/null 2>&1; then
  $SUDO systemctl start docker >/dev/null 2>&1 || true
fi
if ! engine_up && ! pidof dockerd >/dev/null 2>&1; then
  echo "ensure_docker: starting dockerd (log: $LOG)"
  $SUDO sh -c "nohup setsid dockerd >>'$LOG' 2>&1 </dev/null &"
fi

for _ in $(seq 1 "$WAIT_S"); do
  if engine_up; then
    echo "ensure_docker: engine up ($($SUDO docker version --format '{{.Server.Version}}' 2>/dev/null))"
    exit 0
  fi
  sleep 1
done
echo "ensure_docker: dockerd did not answer within ${WAIT_S}s; last lines of $LOG:" >&2
tail -n 20 "$LOG" >&2 2>/dev/null || true
exit 1
