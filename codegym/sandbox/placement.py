"""Which CPU each worker runs on, with everything it forks (its zygote, harness and programs).

Every call a test makes to the candidate is a pipe round trip between the harness and the program
process. When the two sit on one CPU it is a plain context switch; when they sit on two, each message
wakes the other CPU, and on a virtual machine whose CPUs go idle that wake-up costs far more than the
switch (here, a HumanEval call: ~35 us of CPU on one CPU, ~95 us across two; with one pinned worker
per CPU, `codegym judge` on HumanEval x4 went from 187 to 242 samples/s). So a pool pins each worker
to one CPU, spreading its workers over the CPUs this process may use, the ones the fewest workers of
other pools (of any backend, found in /proc by their process name) are pinned to first. A program
that starts threads or processes runs them on its worker's CPU, so none of its work changes a
neighbour's timing; it may widen its own affinity (nothing prevents that, and it gains it nothing:
CPU time is what is measured). The worker pins itself (inside/worker.py, `cpu` in its
configuration), on both backends.
"""

from __future__ import annotations

import os
from collections import Counter
from collections.abc import Sequence

WORKER_PROCESS_NAME = "cg-worker"


def usable_cpus() -> list[int]:
    """The CPUs this process may run on (its affinity: taskset, a cgroup's cpuset)."""
    try:
        return sorted(os.sched_getaffinity(0))
    except (AttributeError, OSError):  # not Linux
        return []


def pinned_workers(proc: str = "/proc") -> Counter[int]:
    """How many running sandbox workers are pinned to each CPU (workers of every pool on the machine).

    Each process's name is read from its `comm` (the kernel writes a few bytes) and only a worker's
    `status` (the kernel assembles ~50 lines, ~0.5 ms each) is read for its CPUs: a pool's start
    stays quick on a machine running hundreds of processes."""
    counts: Counter[int] = Counter()
    try:
        entries = os.listdir(proc)
    except OSError:
        return counts
    for entry in entries:
        if not entry.isdigit():
            continue
        try:
            with open(f"{proc}/{entry}/comm", "rb") as handle:
                if handle.read().rstrip(b"\n") != WORKER_PROCESS_NAME.encode():
                    continue
            with open(f"{proc}/{entry}/status", encoding="ascii", errors="replace") as handle:
                status = handle.read()
        except OSError:  # gone meanwhile, or not ours to read
            continue
        for line in status.splitlines():
            if line.startswith("Cpus_allowed_list:"):
                allowed = line.split(":", 1)[1].strip()
                if allowed.isdigit():
                    counts[int(allowed)] += 1
                break
    return counts


def plan_cpus(slots: int, cpus: Sequence[int], taken: Counter[int] | None = None) -> list[int | None]:
    """One CPU per worker slot: each slot in turn gets the CPU holding the fewest pinned workers
    (other pools' and this pool's earlier slots), the lowest-numbered on a tie. With fewer than two
    CPUs there is nothing to choose: None (unpinned) for every slot."""
    if len(cpus) < 2:
        return [None] * slots
    load = Counter({cpu: (taken or Counter()).get(cpu, 0) for cpu in cpus})
    plan: list[int | None] = []
    for _ in range(slots):
        cpu = min(cpus, key=lambda c: (load[c], c))
        load[cpu] += 1
        plan.append(cpu)
    return plan
