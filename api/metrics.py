"""Prometheus metrics: request latency per GraphQL operation, engine latencies, graph write
retries, the embedded graph engine's exits and restarts, queue depth.

Each app gets its own registry (several apps can live in one process, e.g. in tests).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest

from graph.store import GraphStore
from graph.supervisor import EngineSupervisor

BUCKETS = (0.002, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0, 10.0)


class Metrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry()
        self.requests = Histogram(
            "brain_request_seconds",
            "GraphQL request latency by operation",
            ["operation"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.errors = Counter(
            "brain_request_errors_total",
            "Requests that ended in an unexpected error, by operation",
            ["operation"],
            registry=self.registry,
        )
        self.engine = Histogram(
            "brain_engine_seconds",
            "Engine call latency by engine and operation",
            ["engine", "operation"],
            buckets=BUCKETS,
            registry=self.registry,
        )
        self.graph_retries = Counter(
            "brain_graph_write_retries_total",
            "Graph write transactions run again after a transient error (a write conflict), "
            "by the transaction's first statement",
            ["statement"],
            registry=self.registry,
        )
        self.queue_depth = Gauge(
            "brain_queue_depth", "Pending background jobs", registry=self.registry
        )
        self.engine_exits = Counter(
            "brain_graph_engine_exits_total",
            "Times the embedded graph engine's process exited unasked",
            registry=self.registry,
        )
        self.engine_restarts = Counter(
            "brain_graph_engine_restarts_total",
            "Times the embedded graph engine was restarted after an exit",
            registry=self.registry,
        )
        self.engine_restart_failures = Counter(
            "brain_graph_engine_restart_failures_total",
            "Restart attempts of the embedded graph engine that failed (another follows)",
            registry=self.registry,
        )
        self.graph_up = Gauge(
            "brain_graph_up", "1 when the graph engine can be reached", registry=self.registry
        )
        self.index_lag = Gauge(
            "brain_index_lag", "Memories not yet in the vector index", registry=self.registry
        )

    @contextmanager
    def time_engine(self, engine: str, operation: str) -> Iterator[None]:
        start = time.perf_counter()
        try:
            yield
        finally:
            self.engine.labels(engine, operation).observe(time.perf_counter() - start)

    def engine_observer(self, engine: str) -> Callable[[str, float], None]:
        """A callback ``(operation, seconds)`` for an engine adapter to report each call."""

        def observe(operation: str, seconds: float) -> None:
            self.engine.labels(engine, operation).observe(seconds)

        return observe

    def watch_graph(self, graph: GraphStore) -> None:
        """Report the graph store's statement latencies and write retries."""
        graph.observer = self.engine_observer("graph")
        graph.on_retry = lambda statement: self.graph_retries.labels(statement).inc()

    def watch_supervisor(self, supervisor: EngineSupervisor | None) -> None:
        """Count the embedded engine's exits and restarts."""
        if supervisor is None:
            return
        counters = {
            "exit": self.engine_exits,
            "restart": self.engine_restarts,
            "failed": self.engine_restart_failures,
        }
        supervisor.listeners.append(lambda event: counters[event].inc())

    def render(self) -> bytes:
        return generate_latest(self.registry)
