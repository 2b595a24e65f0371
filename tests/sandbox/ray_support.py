"""A real multi-node Ray cluster on this machine (ray.cluster_utils.Cluster), loopback only, small."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator

from codegym.sandbox.ray.cluster import quiet_environment


@contextlib.contextmanager
def local_cluster(nodes: int = 3, cpus_per_node: int = 1) -> Iterator[object]:
    """`nodes` raylets (the head included), each with `cpus_per_node` CPUs; the test process is
    connected as the driver. Always shut down, even when the test fails."""
    quiet_environment()  # usage stats off, every node on 127.0.0.1, workers import this checkout
    import ray
    from ray.cluster_utils import Cluster

    cluster = Cluster(
        initialize_head=True,
        head_node_args={
            "num_cpus": cpus_per_node,
            "include_dashboard": False,
            "node_ip_address": "127.0.0.1",
            "object_store_memory": 96 * 1024 * 1024,
        },
    )
    try:
        for _ in range(nodes - 1):
            cluster.add_node(
                num_cpus=cpus_per_node, node_ip_address="127.0.0.1", object_store_memory=96 * 1024 * 1024
            )
        cluster.wait_for_nodes()
        ray.init(
            address=cluster.address,
            namespace="codegym-test",
            log_to_driver=False,
            configure_logging=False,
        )
        yield cluster
    finally:
        ray.shutdown()
        cluster.shutdown()
