"""What every lifecycle job gets: the engines, the settings, and the payload sync step.

A job changes the graph first (marking what it touched ``indexed=false`` in the same
transaction), then brings the vector payloads in line and marks the memories indexed
(``ingest/write/sync.py``). If the process dies between the two, the reconciler finishes the
second step.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass
from typing import Any

from core.lifecycle_types import Scope
from core.settings import LifecycleSettings
from graph.store import GraphStore
from graph.tenant import TenantGraph
from ingest.jobs.llm import LLMClient
from ingest.write.writer import MemoryWriter
from vectors.vector_index import VectorIndex

# Rebuild the living profiles of these entities (the resolver's profile builder).
Reprofile = Callable[[str, Sequence[str]], Awaitable[object]]
Progress = Callable[[str], None]


@dataclass
class JobContext:
    writer: MemoryWriter
    settings: LifecycleSettings
    reprofile: Reprofile
    llm: LLMClient | None = None
    progress: Progress | None = None

    @property
    def graph(self) -> GraphStore:
        return self.writer.graph

    @property
    def index(self) -> VectorIndex:
        return self.writer.index

    def say(self, message: str) -> None:
        if self.progress is not None:
            self.progress(message)


@dataclass(frozen=True)
class JobCall:
    """One job on one tenant at one time."""

    tenant_id: str
    scope: Scope
    at: float
    run_id: str

    def tenant(self, ctx: JobContext) -> TenantGraph:
        return ctx.graph.tenant(self.tenant_id)


def batches(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
