"""What every lifecycle job gets: the engines, the settings, and the payload sync step.

A job changes the graph first (marking what it touched ``indexed=false`` in the same
transaction), then brings the vector payloads in line and marks the memories indexed. If the
process dies between the two, the reconciler finishes the second step.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.lifecycle_types import Scope
from core.settings import LifecycleSettings
from graph.store import GraphStore
from graph.tenant import TenantGraph
from ingest.llm import LLMClient
from ingest.writer import MemoryWriter
from retrieval.vector_index import VectorIndex

# Rebuild the living profiles of these entities (the resolver's profile builder).
Reprofile = Callable[[str, Sequence[str]], Awaitable[int]]
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


async def sync_payloads(
    ctx: JobContext, tenant_id: str, changes: Mapping[str, Mapping[str, Any]]
) -> None:
    """Merge each memory's changed payload fields into its vector point, then mark the
    memories indexed. Memories with the same change share one engine call. A memory without
    a point (an earlier write never reached the index) stays unindexed: the reconciler embeds
    it from the graph, changes included."""
    if not changes:
        return
    present = set(await ctx.index.retrieve(tenant_id, list(changes)))
    groups: dict[tuple[tuple[str, Any], ...], list[str]] = defaultdict(list)
    for memory_id, payload in changes.items():
        if memory_id in present:
            groups[tuple(sorted(payload.items()))].append(memory_id)
    for items, ids in groups.items():
        await ctx.index.set_payload(tenant_id, ids, dict(items))
    await ctx.graph.tenant(tenant_id).mark_indexed(sorted(present))


def batches(items: Sequence[Any], size: int) -> list[Sequence[Any]]:
    return [items[i : i + size] for i in range(0, len(items), size)]
