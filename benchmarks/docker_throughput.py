"""Docker backend throughput on HumanEval canonical solutions vs one `docker exec` per sample.

    .venv/bin/python -m benchmarks.docker_throughput [--repeats 4] [--workers 0] [--baseline-threads 0]
        [--rounds 3]

Same image, same run, same machine:
* codegym's docker backend end to end as users run it: `codegym judge SAMPLES --pack humaneval
  --no-reward --backend docker --workers N` in a fresh process (start-up, pack loading and the
  containers' start included);
* the same backend through the Python API: a warm pool of containers, each a warm worker forking
  per execution;
* baseline: one warm container of the same image (same hardening), and per sample one
  `docker exec` (through the SDK) of a tiny script that writes the program and its hidden tests
  to a fresh directory and calls every test function with plain python (cheaper than the runner,
  so the comparison favours the baseline). It runs with as many threads as the pool has containers.

The end-to-end run and the baseline alternate for `--rounds` rounds (this machine is shared: one
pair alone can be off by 2x) and their medians are compared; the API pool is measured once, first.
Prints samples/s, the ratios, the pool size and the pass counts (every canonical solution must pass
in every harness).
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from benchmarks.judge_throughput import write_samples
from codegym.sandbox.docker import DockerBackend, Engine, build_image
from codegym.sandbox.requests import request_for_task
from codegym.sandbox.types import ExecRequest, ExecStatus
from codegym.tasks.humaneval import load_humaneval_pack

# Runs inside the baseline container: argv[1] is {"files": {...}, "tests": {...}}; exit 0 = all passed.
EXEC_SCRIPT = """
import json, os, sys, tempfile, types
job = json.loads(sys.argv[1])
scratch = tempfile.mkdtemp(dir="/tmp")
for name, text in {**job["files"], **job["tests"]}.items():
    with open(os.path.join(scratch, name), "w") as f:
        f.write(text)
os.chdir(scratch)
sys.path.insert(0, scratch)
failed = 0
for name in job["tests"]:
    module = types.ModuleType(name[:-3])
    exec(compile(open(name).read(), name, "exec"), module.__dict__)
    for key, test in list(module.__dict__.items()):
        if key.startswith("test") and callable(test):
            try:
                test()
            except BaseException:
                failed += 1
sys.exit(1 if failed else 0)
"""


ROOT = Path(__file__).resolve().parents[1]


def run_cli(samples: Path, out: Path, workers: int) -> tuple[float, int]:
    """`codegym judge ... --backend docker` in a fresh process, timed from its start to its exit.

    The console script of the interpreter running this benchmark, with this checkout first on the
    path: the same as `.venv/bin/codegym` in the main checkout, and this checkout's code (not the
    editable install's) when the benchmark runs from another worktree."""
    out.unlink(missing_ok=True)
    argv = [str(Path(sys.executable).parent / "codegym"), "judge", str(samples), "--pack", "humaneval"]
    argv += ["--no-reward", "--out", str(out), "--backend", "docker", "--workers", str(workers)]
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(ROOT), os.environ.get("PYTHONPATH")])),
    }
    started = time.perf_counter()
    subprocess.run(argv, check=True, capture_output=True, env=env)
    elapsed = time.perf_counter() - started
    passed = sum(1 for line in out.read_text().splitlines() if json.loads(line).get("passed"))
    return elapsed, passed


def requests_for(repeats: int) -> list[ExecRequest]:
    pack = load_humaneval_pack()
    return [request_for_task(task, task.reference_solution) for task in pack.tasks.values()] * repeats


def run_pool(requests: list[ExecRequest], workers: int) -> tuple[float, Counter[str], str, int]:
    with DockerBackend(workers=workers) as backend:
        backend.start()
        started = time.perf_counter()
        results = backend.execute_many(requests)
        elapsed = time.perf_counter() - started
        return (
            len(results) / elapsed,
            Counter(r.status.value for r in results),
            backend.image,
            backend.workers,
        )


def run_exec_baseline(requests: list[ExecRequest], image: str, threads: int) -> tuple[float, int]:
    engine = Engine()
    api = engine.api
    host_config = api.create_host_config(
        network_mode="none",
        read_only=True,
        tmpfs={"/tmp": "rw,nosuid,nodev,size=256m,mode=1777"},
        cap_drop=["ALL"],
        security_opt=["no-new-privileges:true"],
        pids_limit=256,
        mem_limit="2048m",
    )
    container = api.create_container(
        image.split("@", 1)[1],
        entrypoint=["/bin/sleep", "infinity"],
        user="10001:10001",
        labels={"org.codegym.sandbox": "1", "org.codegym.pool": "benchmark-baseline"},
        network_disabled=True,
        stop_signal="SIGKILL",
        host_config=host_config,
    )["Id"]
    api.start(container)

    def one(request: ExecRequest) -> bool:
        job = json.dumps({"files": dict(request.files), "tests": dict(request.tests)})
        exec_id = api.exec_create(container, ["/usr/bin/python3", "-I", "-c", EXEC_SCRIPT, job])["Id"]
        api.exec_start(exec_id)
        return api.exec_inspect(exec_id)["ExitCode"] == 0

    try:
        started = time.perf_counter()
        with ThreadPoolExecutor(max_workers=threads) as pool:
            passed = sum(pool.map(one, requests))
        elapsed = time.perf_counter() - started
    finally:
        api.remove_container(container, force=True)
        engine.close()
    return len(requests) / elapsed, passed


def main() -> None:
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter
    )
    parser.add_argument("--repeats", type=int, default=4)
    parser.add_argument("--workers", type=int, default=0, help="containers in the pool (0 = cores)")
    parser.add_argument("--baseline-threads", type=int, default=0, help="0 = as many as the pool")
    parser.add_argument("--rounds", type=int, default=3, help="end-to-end/baseline pairs (medians compared)")
    args = parser.parse_args()

    engine = Engine()
    build_image(engine, progress=lambda line: None)
    engine.close()
    requests = requests_for(args.repeats)
    print(f"machine: {os.cpu_count()} cores; HumanEval canonical x{args.repeats} ({len(requests)} runs)")
    ours, statuses, image, pool_size = run_pool(requests, args.workers)
    threads = args.baseline_threads or pool_size
    cli_rates, base_rates, cli_passed, base_passed = [], [], [], []
    with tempfile.TemporaryDirectory() as directory:
        samples, out = Path(directory) / "samples.jsonl", Path(directory) / "judged.jsonl"
        total = write_samples(samples, args.repeats)
        for round_number in range(1, args.rounds + 1):
            elapsed, passed_cli = run_cli(samples, out, pool_size)
            base, passed_base = run_exec_baseline(requests, image, threads)
            cli_rates.append(total / elapsed)
            base_rates.append(base)
            cli_passed.append(passed_cli)
            base_passed.append(passed_base)
            print(
                f"round {round_number}: end to end {total / elapsed:7.1f}/s ({passed_cli}/{total} passed), "
                f"docker exec {base:5.1f}/s ({passed_base}/{len(requests)} passed): "
                f"{total / elapsed / base:.1f}x"
            )
    cli, base = statistics.median(cli_rates), statistics.median(base_rates)
    print(f"image: {image}")
    print(f"{'harness':60} {'samples/s':>10} {'passed':>12}")
    passed = statuses.get(ExecStatus.PASSED.value, 0)
    label = f"codegym judge --backend docker, end to end ({pool_size} containers), median"
    print(f"{label:60} {cli:10.1f} {min(cli_passed):>6}/{total:<5}")
    label = f"codegym docker backend, Python API ({pool_size} warm containers)"
    print(f"{label:60} {ours:10.1f} {passed:>6}/{len(requests):<5}")
    label = f"one docker exec per sample (1 warm container, {threads} threads), median"
    print(f"{label:60} {base:10.1f} {min(base_passed):>6}/{len(requests):<5}")
    print(
        f"speed-up: {cli / base:.1f}x end to end (medians; rounds "
        f"{', '.join(f'{c / b:.1f}x' for c, b in zip(cli_rates, base_rates, strict=True))}), "
        f"{ours / base:.1f}x through the API   pool size: {pool_size}   docker backend statuses: "
        f"{dict(statuses)}"
    )


if __name__ == "__main__":
    main()
