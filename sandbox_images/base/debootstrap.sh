#!/bin/sh
# Offline base image, step 1: a minimal Debian bookworm root filesystem with python3, pytest and
# coverage, built with debootstrap from a Debian mirror (no container registry involved), packed
# as a tar for `docker import`. Same packages as the registry recipe (Dockerfile), so both paths give
# the same layout: /usr/bin/python3 (3.11), Debian's python3-pytest and python3-coverage, and the
# packages bookworm's pytest 7.2 imports (pulled in by python3-pytest anyway; named so both agree).
#
#   debootstrap.sh OUT.tar [MIRROR]      (run as root; MIRROR defaults to deb.debian.org)
set -eu

out=$1
mirror=${2:-http://deb.debian.org/debian}
packages=python3,python3-pytest,python3-coverage,python3-pluggy,python3-iniconfig,python3-packaging,python3-py,python3-attr

work=$(mktemp -d "${TMPDIR:-/var/tmp}/codegym-rootfs.XXXXXX")
cleanup() {
  # debootstrap mounts /proc and /sys in the target while it runs; never leave them behind
  for mount_point in "$work/rootfs/proc" "$work/rootfs/sys"; do
    if mountpoint -q "$mount_point" 2>/dev/null; then umount -l "$mount_point" || true; fi
  done
  rm -rf "$work"
}
trap cleanup EXIT INT TERM

echo "debootstrap: bookworm (minbase) + $packages from $mirror"
debootstrap --variant=minbase --include="$packages" bookworm "$work/rootfs" "$mirror"

rootfs=$work/rootfs
# Trim what a runtime image never needs: package caches and lists, docs, man pages, logs.
rm -rf "$rootfs"/var/lib/apt/lists/* "$rootfs"/var/cache/apt/* "$rootfs"/var/cache/debconf/*-old \
  "$rootfs"/usr/share/doc/* "$rootfs"/usr/share/man/* "$rootfs"/usr/share/info/* \
  "$rootfs"/var/log/* "$rootfs"/tmp/* "$rootfs"/var/tmp/*
# debootstrap writes the host's mirror; point apt at the public one, as the registry path has it
echo "deb http://deb.debian.org/debian bookworm main" >"$rootfs/etc/apt/sources.list"

echo "debootstrap: packing root filesystem"
tar --numeric-owner -C "$rootfs" --exclude='./dev/*' --exclude='./proc/*' --exclude='./sys/*' \
  -cf "$out.partial" .
mv "$out.partial" "$out"
echo "debootstrap: wrote $out ($(du -h "$out" | cut -f1))"
