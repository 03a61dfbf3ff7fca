"""The facade's memory namespace (``brain.memories``): a turn, remember, supersede, forget,
erase and the core-memory changes over the one ``MemoryWriter``, and the reads of stored
memories by id (one, many, a listing page, a supersede chain, core memory).

    memory = await brain.memories.remember("acme", NewMemory(content="Peter writes for WOBS"))
    chain = await brain.memories.lineage("acme", memory.id)

Each write keeps the read side's caches true: a change to a pinned memory invalidates the
tenant's core memory (``retrieval/core_cache.py``), an erase of an entity its name cache, and
new or corrected memories queue a refresh of the profiles of the entities they are about.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.clock import now
from core.errors import InvalidInput
from core.ids import check_id
from core.ingest_types import TurnInput
from core.locks import StripedLimits
from core.types import EraseReport, LineageLink, Memory, MemoryType, NewMemory
from graph.counts import listing_scope
from ingest.service import IngestService
from ingest.turns import TurnResult
from ingest.write.disk_purge import DiskPurge
from ingest.write.reconcile import ReconcileReport, reconcile
from resolution.resolver import Resolver
from retrieval.core_cache import CoreCache


class MemoryOperations:
    """Checks ids, writes through the ingest side's writer, keeps the caches fresh."""

    def __init__(
        self, ingest: IngestService, resolver: Resolver, core: CoreCache, disk: DiskPurge
    ) -> None:
        self.ingest = ingest
        self.writer = ingest.writer
        self.resolver = resolver
        self.core_cache = core
        self.disk = disk
        # A tenant's writes a few at a time, in arrival order (``ingest.writes_at_once``):
        # sixteen at once share the cores and conflict on the same records, and the unlucky
        # ones retry for seconds; a few at a time each finish in about the same time.
        self.admitted = StripedLimits(ingest.settings.ingest.writes_at_once)
        self.graph = ingest.writer.graph

    # -- reads ---------------------------------------------------------------------------------

    async def get(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.graph.tenant(tenant_id).get_memory(check_id(memory_id))

    async def get_many(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Memory]:
        return await self.graph.tenant(tenant_id).get_memories([check_id(i) for i in ids])

    async def lineage(self, tenant_id: str, memory_id: str) -> list[LineageLink]:
        return await self.graph.tenant(tenant_id).chain(check_id(memory_id))

    async def page(
        self,
        tenant_id: str,
        *,
        first: int,
        after: tuple[float, str] | None = None,
        types: Sequence[MemoryType] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        user_id: str | None = None,
        include_superseded: bool = False,
        include_forgotten: bool = False,
        since: float | None = None,
        until: float | None = None,
    ) -> list[Memory]:
        """A page of memories, newest first (one listing query plus one hydration query)."""
        tenant = self.graph.tenant(tenant_id)
        ids = await tenant.list_memory_ids(
            limit=first,
            types=types,
            project_id=project_id,
            session_id=session_id,
            user_id=user_id,
            **listing_scope(include_superseded, include_forgotten),
            since=since,
            until=until,
            after=after,
        )
        found = await tenant.get_memories(ids)
        return [found[i] for i in ids if i in found]

    async def core(self, tenant_id: str, user_id: str | None = None) -> list[Memory]:
        """Pinned and learned items; with ``user_id``, that user's own and the shared ones."""
        return await self.graph.tenant(tenant_id).core_memories(now(), user_id)

    # -- writes --------------------------------------------------------------------------------

    async def record_turn(self, tenant_id: str, turn: TurnInput) -> TurnResult:
        async with self.admitted.of(tenant_id):
            result = await self.ingest.turns.record_turn(tenant_id, turn)
        if any(m.pinned for m in result.extracted):  # learned core items (``ingest/learned``)
            self.core_cache.invalidate(tenant_id)
        return result

    async def remember(self, tenant_id: str, item: NewMemory) -> Memory:
        return (await self.remember_many(tenant_id, [item]))[0]

    async def remember_many(self, tenant_id: str, items: Sequence[NewMemory]) -> list[Memory]:
        async with self.admitted.of(tenant_id):
            stored = await self.writer.remember(tenant_id, items)
        if any(m.pinned for m in stored):
            self.core_cache.invalidate(tenant_id)  # core memory shows it on the next read
        await self.ingest.refresh_profiles_later(
            tenant_id, [e for m in stored for e in m.entity_ids]
        )
        return stored

    async def supersede(
        self, tenant_id: str, memory_id: str, content: str, reason: str | None = None
    ) -> Memory:
        async with self.admitted.of(tenant_id):
            new = await self.writer.supersede(tenant_id, check_id(memory_id), content, reason)
        if new.pinned:
            self.core_cache.invalidate(tenant_id)  # the new version replaces the old in core
        await self.ingest.refresh_profiles_later(tenant_id, new.entity_ids)
        return new

    async def forget(self, tenant_id: str, memory_id: str) -> Memory:
        forgotten = await self.writer.forget(tenant_id, check_id(memory_id))
        if forgotten.pinned:
            self.core_cache.invalidate(tenant_id)
        return forgotten

    async def erase(
        self,
        tenant_id: str,
        memory_ids: Sequence[str] = (),
        entity_id: str | None = None,
        user_id: str | None = None,
    ) -> EraseReport:
        """GDPR hard delete of a subject from both engines (see ``MemoryWriter.erase``); the
        profiles of surviving entities that mentioned it are rebuilt before this returns."""
        entity = check_id(entity_id, "entityId") if entity_id is not None else None
        report = await self.writer.erase(
            tenant_id,
            memory_ids,
            entity,
            user_id,
            reprofile=self.resolver.profiles.reprofile_entities,
            purge=self.disk.after_erase,
        )
        if report.entity_ids:
            self.resolver.names.invalidate(tenant_id)
        self.core_cache.invalidate(tenant_id)
        return report

    async def pin_core(self, tenant_id: str, item: NewMemory) -> Memory:
        return await self.remember(tenant_id, item.model_copy(update={"pinned": True}))

    async def update_core(self, tenant_id: str, memory_id: str, content: str) -> Memory:
        current = await self.writer.graph.tenant(tenant_id).get_memory(check_id(memory_id))
        if not current.pinned:
            raise InvalidInput(f"memory {memory_id} is not core memory", field="id")
        return await self.supersede(tenant_id, memory_id, content, "core memory updated")

    async def unpin_core(self, tenant_id: str, memory_id: str) -> Memory:
        tenant = self.writer.graph.tenant(tenant_id)
        await tenant.get_memory(check_id(memory_id))
        await tenant.set_pinned([memory_id], False)
        # A learned item is remembered as removed: said again, it is not pinned again.
        await tenant.dismiss_core(memory_id)
        self.core_cache.invalidate(tenant_id)
        await self.writer.sync.show(tenant_id, changes={memory_id: {"pinned": False}})
        return await tenant.get_memory(memory_id)

    async def reconcile(self, tenants: Sequence[str] | None = None) -> ReconcileReport:
        """Index what the graph holds and the vector index lacks (after a crash, an import)."""
        return await reconcile(self.writer, tenants)
