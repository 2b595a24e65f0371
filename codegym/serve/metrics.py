"""Service-wide Prometheus metrics. Replicas come and go (autoscaling, failures), so the figures live in
one small Ray actor that every replica reports to; `/metrics`, served by any replica, renders it."""

from __future__ import annotations

import time
from collections import deque
from typing import Any

METRICS_ACTOR = "codegym-serve-metrics"
LATENCY_BUCKETS = (0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0, 30.0, 60.0)
REPLICA_STALE_S = 15.0  # a replica that has not reported for this long no longer counts
RATE_WINDOW_S = 60.0


class MetricsActor:
    def __init__(self) -> None:
        from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram

        self.registry = CollectorRegistry()
        r = self.registry
        self.requests = Counter("codegym_requests", "HTTP requests by status code", ["code"], registry=r)
        self.programs = Counter("codegym_programs_judged", "Programs judged", registry=r)
        self.sandbox_errors = Counter(
            "codegym_sandbox_errors", "Programs ending in sandbox_error", registry=r
        )
        self.hacks = Counter("codegym_hacks", "Programs a hacking detector flagged", registry=r)
        self.cache_hits = Counter("codegym_cache_hits", "Reward cache hits", registry=r)
        self.cache_lookups = Counter("codegym_cache_lookups", "Reward cache lookups", registry=r)
        self.latency = Histogram(
            "codegym_request_latency_seconds", "Judge request latency", buckets=LATENCY_BUCKETS, registry=r
        )
        self.rate = Gauge(
            "codegym_programs_per_second", f"Programs judged per second ({RATE_WINDOW_S:.0f} s)", registry=r
        )
        self.queue = Gauge(
            "codegym_queue_depth", "Programs accepted and not yet judged, all replicas", registry=r
        )
        self.replicas = Gauge("codegym_replicas", "Replicas that reported recently", registry=r)
        self.hack_rate = Gauge("codegym_hack_rate", "Share of judged programs flagged as hacks", registry=r)
        self.hit_rate = Gauge("codegym_cache_hit_rate", "Share of reward cache lookups that hit", registry=r)
        self._recent: deque[tuple[float, int]] = deque()
        self._inflight: dict[str, tuple[float, int]] = {}  # replica -> (last report, programs in flight)
        self._totals = {"programs": 0, "hacks": 0, "hits": 0, "lookups": 0}

    def report(self, replica: str, inflight: int, outcome: dict[str, Any] | None = None) -> None:
        """A replica's queue depth, and when a request ended its outcome."""
        now = time.time()
        self._inflight[replica] = (now, inflight)
        if outcome is None:
            return
        self.requests.labels(code=str(outcome.get("code", 200))).inc()
        if "latency_s" in outcome:
            self.latency.observe(outcome["latency_s"])
        programs = int(outcome.get("programs", 0))
        if programs:
            self.programs.inc(programs)
            self._recent.append((now, programs))
        for name, counter, total in (
            ("sandbox_errors", self.sandbox_errors, None),
            ("hacks", self.hacks, "hacks"),
            ("cache_hits", self.cache_hits, "hits"),
            ("cache_lookups", self.cache_lookups, "lookups"),
        ):
            amount = int(outcome.get(name, 0))
            if amount:
                counter.inc(amount)
                if total:
                    self._totals[total] += amount
        self._totals["programs"] += programs

    def render(self) -> bytes:
        from prometheus_client import generate_latest

        now = time.time()
        while self._recent and now - self._recent[0][0] > RATE_WINDOW_S:
            self._recent.popleft()
        self.rate.set(sum(n for _, n in self._recent) / RATE_WINDOW_S)
        live = {k: v for k, v in self._inflight.items() if now - v[0] <= REPLICA_STALE_S}
        self._inflight = live
        self.replicas.set(len(live))
        self.queue.set(sum(n for _, n in live.values()))
        totals = self._totals
        self.hack_rate.set(totals["hacks"] / totals["programs"] if totals["programs"] else 0.0)
        self.hit_rate.set(totals["hits"] / totals["lookups"] if totals["lookups"] else 0.0)
        return generate_latest(self.registry)
