"""Starting the judge service: Ray (a local instance on loopback, or a cluster), the metrics actor,
Ray Serve's HTTP proxy on HOST:PORT, and the autoscaled judge deployment; ready once /readyz answers."""

from __future__ import annotations

import time
import urllib.request
from typing import Any

from codegym.serve.config import ServeConfig
from codegym.serve.metrics import METRICS_ACTOR

NAMESPACE = "codegym-serve"
APP_NAME = "codegym"


def deployment_settings(config: ServeConfig) -> dict[str, Any]:
    return {
        "token": config.token(),
        "workers": config.workers_per_replica,
        "cache": config.cache,
        "reward_config": config.reward_config,
        "tasks_dirs": list(config.tasks_dirs),
        "max_body_bytes": config.max_body_bytes,
        "max_items": config.max_items,
        "namespace": NAMESPACE,
    }


def start_service(config: ServeConfig, ready_timeout_s: float = 180.0) -> str:
    """Start everything and wait until a replica is ready; returns the service's URL."""
    import ray
    from ray import serve

    from codegym.sandbox.ray.cluster import connect
    from codegym.serve.metrics import MetricsActor
    from codegym.serve.service import JudgeService

    connect(config.address, NAMESPACE)
    ray.remote(MetricsActor).options(
        name=METRICS_ACTOR, namespace=NAMESPACE, get_if_exists=True, num_cpus=0, lifetime="detached"
    ).remote()
    serve.start(http_options={"host": config.host, "port": config.port})
    deployment = JudgeService.options(
        autoscaling_config={
            "min_replicas": config.min_replicas,
            "max_replicas": config.max_replicas,
            "target_ongoing_requests": config.target_ongoing_requests,
            "upscale_delay_s": 2.0,
            "downscale_delay_s": 30.0,
        },
        ray_actor_options={"num_cpus": config.num_cpus_per_replica},
    )
    serve.run(deployment.bind(deployment_settings(config)), name=APP_NAME, route_prefix="/")
    url = f"http://{config.host}:{config.port}"
    deadline = time.monotonic() + ready_timeout_s
    while True:
        try:
            with urllib.request.urlopen(f"{url}/readyz", timeout=5) as response:
                if response.status == 200:
                    return url
        except OSError:
            pass
        if time.monotonic() > deadline:
            raise RuntimeError(f"the judge service did not become ready within {ready_timeout_s:.0f} s")
        time.sleep(0.5)


def stop_service() -> None:
    import contextlib

    import ray
    from ray import serve

    with contextlib.suppress(Exception):
        serve.shutdown()
    with contextlib.suppress(Exception):
        ray.kill(ray.get_actor(METRICS_ACTOR, namespace=NAMESPACE))
