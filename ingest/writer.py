"""The durable write path: graph first, then the vector, then mark indexed.

The graph is the system of record. A memory is committed to the graph with ``indexed=false``
before its vector exists; only after the vector index has it (with the current payload) is it
marked ``indexed=true``. A crash between the steps leaves an unindexed memory that the
reconciler (``ingest/reconcile.py``) finishes: nothing is lost, and nothing is in the vector
index that the graph does not know.
"""

from __future__ import annotations

from collections.abc import Sequence

from core.clock import now, to_epoch
from core.errors import InvalidInput, NotFound
from core.ids import check_ids, new_id
from core.settings import LimitSettings
from core.text import content_hash
from core.types import EraseReport, Memory, NewMemory, default_decay
from core.validation import check_batch, check_content
from graph.store import GraphStore
from retrieval.embedders import Embedder
from retrieval.payload import payload_of
from retrieval.vector_index import VectorIndex, VectorPoint


class MemoryWriter:
    """Stores, supersedes, forgets and erases memories in both engines, graph first."""

    def __init__(
        self, graph: GraphStore, index: VectorIndex, embedder: Embedder, limits: LimitSettings
    ) -> None:
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.limits = limits

    def build(self, tenant_id: str, item: NewMemory, at: float | None = None) -> Memory:
        """Validate a new memory and give it an id and times (nothing is written)."""
        content = check_content(item.content, self.limits)
        created = item.created_at if item.created_at is not None else (at or now())
        return Memory(
            id=new_id(),
            tenant_id=tenant_id,
            type=item.type,
            content=content,
            user_id=item.user_id,
            project_id=item.project_id,
            session_id=item.session_id,
            importance=item.importance,
            decay_class=item.decay_class or default_decay(item.type, item.pinned),
            created_at=created,
            valid_from=item.valid_from if item.valid_from is not None else created,
            content_hash=content_hash(content),
            pinned=item.pinned,
            source=item.source,
            entity_ids=tuple(check_ids(item.entity_ids, "entities")),
            expires_at=to_epoch(item.expires_at) or Memory.model_fields["expires_at"].default,
            subject=item.subject,
            predicate=item.predicate,
            object=item.object,
            confidence=item.confidence,
        )

    async def remember(self, tenant_id: str, items: Sequence[NewMemory]) -> list[Memory]:
        """Store memories durably; they are searchable when this returns."""
        check_batch(len(items), self.limits)
        memories = [self.build(tenant_id, item) for item in items]  # all validated first
        await self.store(memories)
        return [m.model_copy(update={"indexed": True}) for m in memories]

    async def store(self, memories: Sequence[Memory]) -> None:
        """Write already-built memories through the durable path."""
        if not memories:
            return
        tenant = self.graph.tenant(memories[0].tenant_id)
        await tenant.create_memories(memories)
        await self.index_memories(memories)
        await tenant.mark_indexed([m.id for m in memories])

    async def index_memories(self, memories: Sequence[Memory]) -> None:
        """Embed and upsert (idempotent: re-running replaces the same points)."""
        vectors = await self.embedder.embed_documents([m.content for m in memories])
        await self.index.upsert(
            [
                VectorPoint(id=m.id, dense=v, text=m.content, payload=payload_of(m))
                for m, v in zip(memories, vectors, strict=True)
            ]
        )

    async def supersede(
        self,
        tenant_id: str,
        old_id: str,
        content: str,
        reason: str | None = None,
        at: float | None = None,
    ) -> Memory:
        """Replace the current memory ``old_id`` with new content; the chain keeps both."""
        text = check_content(content, self.limits)
        if reason is not None and len(reason) > 1000:
            raise InvalidInput("reason is limited to 1000 characters", field="reason")
        tenant = self.graph.tenant(tenant_id)
        old = await tenant.get_memory(old_id)
        when = at if at is not None else now()
        new = old.model_copy(
            update={
                "id": new_id(),
                "content": text,
                "content_hash": content_hash(text),
                "created_at": when,
                "valid_from": when,
                "access_count": 0,
                "last_accessed_at": None,
                "supersedes": old.id,
                "indexed": False,
                "entity_ids": (),
            }
        )
        created = await tenant.supersede(old_id, new, reason)
        old_now = await tenant.get_memory(old_id)
        await self.index_memories([created])
        await self.index.set_payload(tenant_id, [old_id], {"superseded_at": old_now.superseded_at})
        await tenant.mark_indexed([old_id, created.id])
        return created.model_copy(update={"indexed": True})

    async def forget(self, tenant_id: str, memory_id: str) -> Memory:
        """Soft delete: the memory stays in the graph (and its lineage) but leaves every read."""
        tenant = self.graph.tenant(tenant_id)
        await tenant.get_memory(memory_id)
        when = now()
        await tenant.forget([memory_id], when)
        await self.index.set_payload(tenant_id, [memory_id], {"expires_at": when})
        await tenant.mark_indexed([memory_id])
        return await tenant.get_memory(memory_id)

    async def erase(
        self,
        tenant_id: str,
        memory_ids: Sequence[str] = (),
        entity_id: str | None = None,
        user_id: str | None = None,
    ) -> EraseReport:
        """Hard delete from the graph and the vector index. Vectors go first, so a crash
        leaves graph records that a repeated erase finishes, never an orphan vector."""
        if not memory_ids and entity_id is None and user_id is None:
            raise InvalidInput("say what to erase: memoryIds, entityId or userId")
        tenant = self.graph.tenant(tenant_id)
        ids = set(check_ids(list(memory_ids), "memoryIds"))
        if entity_id is not None:
            await tenant.get_entity(entity_id)  # NotFound for unknown / other tenants
            ids |= set(await tenant.memory_ids_about(entity_id))
        if user_id is not None:
            ids |= set(await tenant.memory_ids_by_user(user_id))
        existing = sorted(await tenant.existing_memory_ids(sorted(ids))) if ids else []
        if memory_ids and not existing and entity_id is None and user_id is None:
            raise NotFound("memory", sorted(ids)[0])
        await self.index.delete(tenant_id, existing)
        erased = await tenant.erase_memories(existing)
        entities: tuple[str, ...] = ()
        if entity_id is not None:
            await tenant.erase_entity(entity_id)
            entities = (entity_id,)
        return EraseReport(
            memory_ids=tuple(erased), entity_ids=entities, vector_points=len(existing)
        )
