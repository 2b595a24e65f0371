"""Run the adversarial catalogue (tests/sandbox/attacks.py) against a 1-worker sandbox backend.

    python -m tests.sandbox.run_attacks [--backend local|docker] [--isolation bwrap|unshare]
                                        [--only NAME ...] [--category C] [--list]

It refuses to run outside a throwaway PID namespace: the programs kill every pid they see, fork
until the process limit and fill memory, so a sandbox failure must at worst take that namespace
down. Start it from the repository root like this (as root, or with unprivileged user namespaces):

    CODEGYM_THROWAWAY_PARENT_PIDNS=$(readlink /proc/self/ns/pid) \\
        unshare --pid --fork --mount-proc --kill-child \\
        .venv/bin/python -m tests.sandbox.run_attacks --backend local --isolation bwrap

(the variable records the namespace it was started from; inside, /proc/self/ns/pid differs from it,
as tests/conftest.py checks for the hostile suites). Never send anything off loopback.

Every attack and control runs on the same single worker, in catalogue order; a cross-run probe's
setup program is judged right before it. The table shows each entry's status and flags and a verdict:
OK, or BROKEN when an attack was judged `passed` or a control failed or raised a flag. Exit status 1
when anything is BROKEN, 2 when the run could not start.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections.abc import Sequence
from typing import Any

from tests.sandbox.attacks import ATTACKS, CATEGORIES, CONTROLS, Attack, requests_for

THROWAWAY_ENV = "CODEGYM_THROWAWAY_PARENT_PIDNS"


def in_throwaway_pid_namespace() -> bool:
    parent = os.environ.get(THROWAWAY_ENV)
    return bool(parent) and os.readlink("/proc/self/ns/pid") != parent


def select(only: Sequence[str], category: str | None) -> list[Attack]:
    entries = [*ATTACKS, *CONTROLS]
    if only:
        known = {entry.name: entry for entry in entries}
        unknown = [name for name in only if name not in known]
        if unknown:
            raise SystemExit(f"unknown catalogue entries: {', '.join(unknown)}")
        entries = [known[name] for name in only]
    if category:
        entries = [entry for entry in entries if entry.category == category]
    return entries


def verdict_of(entry: Attack, result: Any) -> str:
    if entry.category == "controls":
        return "OK" if result.passed and not result.flags else "BROKEN"
    return "BROKEN" if result.passed else "OK"


def make_backend(name: str, isolation: str) -> Any:
    from codegym.sandbox.backend import create_backend

    if name == "local":
        return create_backend("local", workers=1, isolation=isolation, tmp_size_mb=256)
    return create_backend(name, workers=1)


def schedule(entries: Sequence[Attack]) -> list[tuple[Attack, str]]:
    """Controls first (a clean worker), then the attacks, then the controls again: a control that
    passes before the attacks and fails after them was sabotaged by what an attack left behind."""
    controls = [entry for entry in entries if entry.category == "controls"]
    attacks = [entry for entry in entries if entry.category != "controls"]
    order = [(entry, "") for entry in controls] + [(entry, "") for entry in attacks]
    if controls and attacks:
        order += [(entry, " [after attacks]") for entry in controls]
    return order


def run(entries: Sequence[Attack], backend: Any) -> list[tuple[Attack, str, Any]]:
    rows = []
    for entry, suffix in schedule(entries):
        requests = requests_for(entry)
        started = time.monotonic()
        for request in requests[:-1]:  # the setup program plants its state first, on the same worker
            backend.execute(request)
        result = backend.execute(requests[-1])
        rows.append((entry, suffix, result))
        print(_row(entry, suffix, result, time.monotonic() - started), flush=True)
    return rows


def _row(entry: Attack, suffix: str, result: Any, seconds: float) -> str:
    flags = ",".join(result.flags) or "-"
    detail = (result.message or (result.tests[0].message if result.tests else "")).splitlines()
    return (
        f"{entry.name + suffix:62} {entry.category:16} {result.status.value:14} {flags:28} "
        f"{verdict_of(entry, result):6} {seconds:6.2f}s  {(detail[0] if detail else '')[:70]}"
    )


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--backend", default="local", choices=("local", "docker"))
    parser.add_argument("--isolation", default="bwrap", choices=("bwrap", "unshare"))
    parser.add_argument("--only", nargs="+", default=[], metavar="NAME")
    parser.add_argument("--category", choices=CATEGORIES)
    parser.add_argument("--list", action="store_true", help="list the catalogue and exit")
    args = parser.parse_args(argv)

    entries = select(args.only, args.category)
    if args.list:
        for entry in entries:
            print(f"{entry.name:48} {entry.category:16} {entry.note}")
        return 0
    if not in_throwaway_pid_namespace():
        print(
            f"refusing to run: not inside a throwaway PID namespace ({THROWAWAY_ENV} unset or equal to "
            "this namespace). See this module's docstring for the unshare command line.",
            file=sys.stderr,
        )
        return 2
    print(f"{'name':62} {'category':16} {'status':14} {'flags':28} {'verdict':6} {'time':6}  message")
    with make_backend(args.backend, args.isolation) as backend:
        backend.start()
        rows = run(entries, backend)
    broken = [(entry, suffix) for entry, suffix, result in rows if verdict_of(entry, result) == "BROKEN"]
    attacks = [row for row in rows if row[0].category != "controls"]
    got_through = [entry.name for entry, _, result in attacks if result.passed]
    failed_controls = [entry.name + suffix for entry, suffix in broken if entry.category == "controls"]
    print()
    print(
        f"{len(attacks)} attacks, {len(got_through)} judged passed (BROKEN): {', '.join(got_through) or '-'}"
    )
    print(
        f"{len(rows) - len(attacks)} control runs, {len(failed_controls)} BROKEN: {', '.join(failed_controls) or '-'}"
    )
    return 1 if broken else 0


if __name__ == "__main__":
    sys.exit(main())
