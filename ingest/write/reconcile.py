"""Graph ↔ vector reconciliation: finish interrupted writes and drop orphan vectors.

Runs at start-up and on demand. For every tenant: memories the graph marks ``indexed=false``
are (re-)embedded and upserted with the payload the graph says they should have, then marked
indexed; vector points whose memory no longer exists in the graph are deleted. Both steps are
idempotent, so a crash during reconciliation is finished by the next run. The orphan search
compares ids only when the tenant has more points than memories (two counts otherwise).
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field

from graph.store import GraphStore
from ingest.write.writer import MemoryWriter

log = logging.getLogger(__name__)


@dataclass
class ReconcileReport:
    tenants: int = 0
    reindexed: int = 0
    orphans_removed: int = 0
    errors: list[str] = field(default_factory=list)


async def reconcile(
    writer: MemoryWriter,
    tenants: Sequence[str] | None = None,
    batch: int = 256,
    progress: Callable[[str], None] | None = None,
) -> ReconcileReport:
    """Bring the vector index in line with the graph for ``tenants`` (default: all)."""
    graph: GraphStore = writer.graph
    report = ReconcileReport()
    for tenant_id in tenants if tenants is not None else await graph.system.tenants():
        report.tenants += 1
        tenant = graph.tenant(tenant_id)
        seen: set[str] = set()
        while True:
            ids = [i for i in await tenant.unindexed_ids(batch) if i not in seen]
            if not ids:
                break
            seen.update(ids)
            memories = list((await tenant.get_memories(ids)).values())
            await writer.sync.show(tenant_id, new=memories)
            report.reindexed += len(memories)
            if progress:
                progress(f"{tenant_id}: re-indexed {report.reindexed} memories")
        # Every memory has one point once the loop above ran, so equal counts mean no orphan:
        # the id-by-id comparison below (one graph read per ``batch`` points, the whole
        # tenant) is only needed when the index holds more points than the graph memories.
        total, _ = await tenant.memory_counts()
        if await writer.index.count(tenant_id) <= total:
            continue
        point_ids = await writer.index.all_ids(tenant_id)
        for start in range(0, len(point_ids), batch):
            chunk = point_ids[start : start + batch]
            orphans = sorted(set(chunk) - await tenant.existing_memory_ids(chunk))
            if orphans:
                await writer.sync.remove(tenant_id, orphans)
                report.orphans_removed += len(orphans)
    if report.reindexed or report.orphans_removed:
        log.info(
            "reconciled %d tenants: %d re-indexed, %d orphan vectors removed",
            report.tenants,
            report.reindexed,
            report.orphans_removed,
        )
    return report
