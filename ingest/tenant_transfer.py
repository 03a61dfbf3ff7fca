"""A tenant's export and import: JSONL-ready records out, the same records back in, indexed.

The facade's ``brain.transfer``; the records' format is ``graph/transfer.py``'s, the file
format ``api/export_format.py``'s.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Any, Protocol

from core.errors import Conflict
from graph.store import GraphStore
from ingest.write.reconcile import reconcile
from ingest.write.writer import MemoryWriter


class TenantCache(Protocol):
    """A per-process cache of a tenant's reads (the resolver's names, core memory)."""

    def invalidate(self, tenant_id: str) -> None: ...


class TenantTransfer:
    """Exports a tenant's records and imports them (ids kept) into a tenant."""

    def __init__(self, writer: MemoryWriter, caches: Sequence[TenantCache]) -> None:
        self._graph: GraphStore = writer.graph
        self._writer = writer  # indexes what the graph holds and the index lacks
        self._caches = caches  # dropped for the tenant after an import

    async def export(self, tenant_id: str) -> AsyncIterator[dict[str, Any]]:
        """JSONL-ready records of the whole tenant (entities, merges, relations, memories)."""
        async for record in self._graph.tenant(tenant_id).export_records():
            yield record

    async def import_(self, tenant_id: str, records: Sequence[dict[str, Any]]) -> dict[str, int]:
        """Recreate exported records in ``tenant_id`` (ids kept), then index them.

        Raises:
            Conflict: some of the records' ids exist in this database already (nothing is
                imported): an import into a tenant that has it, or into a database that holds
                the exported tenant.
        """
        await self._check_ids_free(tenant_id, records)
        counts = await self._graph.tenant(tenant_id).import_records(records)
        for cache in self._caches:
            cache.invalidate(tenant_id)
        report = await reconcile(self._writer, [tenant_id])
        return {**counts, "indexed": report.reindexed}

    async def _check_ids_free(self, tenant_id: str, records: Sequence[dict[str, Any]]) -> None:
        ids: dict[str, list[str]] = {"memory": [], "entity": []}
        for rec in records:
            if rec.get("kind") in ids and isinstance(rec.get(rec["kind"]), dict):
                ids[rec["kind"]].append(str(rec[rec["kind"]].get("id")))
        holders = await self._graph.system.holders(ids["memory"], ids["entity"])
        if not holders:
            return
        here = holders.count(tenant_id)
        if here == len(holders):
            where = f"tenant {tenant_id!r} has them: the export was imported there already"
        else:
            where = (
                "another tenant of this database has them (ids are unique across tenants): "
                "import into another database, or erase that tenant first"
            )
        raise Conflict(
            f"nothing imported: {len(holders)} of the export's {sum(map(len, ids.values()))} "
            f"memory and entity ids exist already; {where}"
        )
