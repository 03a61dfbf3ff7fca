"""The durable write path: graph first, then the vector, then mark indexed.

The graph is the system of record. A memory is committed to the graph with ``indexed=false``
before its vector exists; only after the vector index has it (with the current payload) is it
marked ``indexed=true``. A crash between the steps leaves an unindexed memory that the
reconciler (``ingest/reconcile.py``) finishes: nothing is lost, and nothing is in the vector
index that the graph does not know.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from core.clock import now, to_epoch
from core.disk_scan import Needles
from core.errors import BackendError, InvalidInput, NotFound
from core.ids import check_ids, new_id
from core.locks import StripedLocks
from core.settings import LimitSettings
from core.text import content_hash
from core.types import DiskCheck, EraseReport, Memory, MemoryType, NewMemory, default_decay
from core.validation import check_batch, check_content, check_project_id
from graph.store import GraphStore
from ingest.marks import IndexMarks
from retrieval.embedding.embedder import Embedder
from retrieval.payload import payload_of
from retrieval.vector_index import VectorIndex, VectorPoint

log = logging.getLogger(__name__)

# Rebuilds the profiles of these entities of a tenant (``ProfileBuilder.reprofile_entities``).
Reprofile = Callable[[str, Sequence[str]], Awaitable[object]]
# Compacts the engines' files and looks for what an erase removed (``api.disk.DiskPurge``).
Purge = Callable[[Needles], Awaitable[DiskCheck]]


class MemoryWriter:
    """Stores, supersedes, forgets and erases memories in both engines, graph first."""

    def __init__(
        self, graph: GraphStore, index: VectorIndex, embedder: Embedder, limits: LimitSettings
    ) -> None:
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.limits = limits
        self.marks = IndexMarks(graph)  # the ingest path's deferred ``indexed`` marks
        # Held by ingest writes from reading what they change to writing it, per statement
        # (a fact's subject and predicate, a task, a document path), so writes of this
        # process that change the same thing take turns (turns, LLM jobs, documents).
        self.statements = StripedLocks()

    def build(
        self, tenant_id: str, item: NewMemory, at: float | None = None, memory_id: str | None = None
    ) -> Memory:
        """Validate a new memory and give it an id (``memory_id`` when the caller chose it
        beforehand) and times; nothing is written."""
        content = check_content(item.content, self.limits)
        check_project_id(item.project_id)
        created = item.created_at if item.created_at is not None else (at or now())
        return Memory(
            id=memory_id or new_id(),
            tenant_id=tenant_id,
            type=item.type,
            content=content,
            user_id=item.user_id,
            project_id=item.project_id,
            session_id=item.session_id,
            importance=item.importance,
            decay_class=item.decay_class or default_decay(item.type, item.pinned, item.predicate),
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
            trigger=item.trigger,
            steps=tuple(item.steps),
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
        vectors = await self.embedder.embed_documents([m.indexed_text for m in memories])
        await self.index.upsert(
            [
                VectorPoint(id=m.id, dense=v, text=m.indexed_text, payload=payload_of(m))
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
        reprofile: Reprofile | None = None,
        purge: Purge | None = None,
    ) -> EraseReport:
        """Hard delete a subject from both engines, with everything derived from it.

        The subject is the named memories, the memories about ``entity_id`` (and the entity,
        with entities merged into it), or the memories of ``user_id``. It takes along the
        memories holding the same text (extractions from its turns, earlier versions, merged
        duplicates, patterns over its episodes) and every record naming it (see
        ``graph/erase_ops.py``). Vectors go first, then the graph in one transaction: a crash
        leaves graph records that a repeated erase finishes, never an orphan vector.
        ``reprofile(tenant_id, entity_ids)`` rebuilds the profiles the erase cleared (without
        it, the lifecycle's stale-profile pass does). ``purge`` then compacts the engines'
        files and checks them for the erased ids and strings (the report's ``disk``).

        Raises InvalidInput when nothing is named, NotFound for an unknown entity, or for
        memory ids none of which exist.
        """
        if not memory_ids and entity_id is None and user_id is None:
            raise InvalidInput("say what to erase: memoryIds, entityId or userId")
        tenant = self.graph.tenant(tenant_id)
        named = set(check_ids(list(memory_ids), "memoryIds"))
        entities: list[str] = []
        if entity_id is not None:
            entities, about = await asyncio.gather(
                tenant.entity_family(entity_id), tenant.memory_ids_about(entity_id)
            )
            if not entities:  # unknown, or another tenant's
                raise NotFound("entity", entity_id)
            named |= set(about)
        if user_id is not None:
            named |= set(await tenant.memory_ids_by_user(user_id))
        subject = await tenant.existing_memory_ids(sorted(named)) if named else set()
        if memory_ids and not subject and entity_id is None and user_id is None:
            raise NotFound("memory", sorted(named)[0])
        ids = sorted(await tenant.erase_closure(subject))
        affected = await tenant.erase_affected_entities(ids, entities)
        names = await tenant.get_entities(entities) if entities else {}

        points = len(await self.index.retrieve(tenant_id, ids))
        await self.index.delete(tenant_id, ids)
        done = await tenant.erase_graph(ids, entities, user_id, affected)
        await self._show_restored(tenant_id, done.restored)
        verified = await self._verify_erased(tenant_id, ids)
        reprofiled = await self._reprofile(tenant_id, affected, reprofile)
        patterns = {i for i, kind in done.memories.items() if kind == MemoryType.PATTERN.value}
        disk = DiskCheck()
        if purge is not None and (done.memories or entities or user_id is not None):
            erased_ids = [*done.memories, *entities, *([user_id] if user_id else [])]
            texts = [*done.texts, *(n for e in names.values() for n in (e.name, *e.aliases))]
            disk = await purge(Needles.of(erased_ids, texts))
        return EraseReport(
            memory_ids=tuple(sorted(done.memories)),
            entity_ids=tuple(entities),
            vector_points=points,
            derived_memories=len(set(done.memories) - subject - patterns),
            patterns=len(patterns),
            restored_memories=len(done.restored),
            reprofiled_entities=reprofiled,
            conflicts=done.conflicts,
            jobs=done.jobs,
            sessions=done.sessions,
            documents=done.documents,
            feedback=done.feedback,
            relations=done.relations,
            verified=verified,
            disk=disk,
        )

    async def _show_restored(self, tenant_id: str, restored: Mapping[str, float]) -> None:
        """Bring the vector payloads of episodes an erased pattern gave back up to date. One
        without a point stays unindexed: the reconciler embeds it from the graph."""
        if not restored:
            return
        try:
            present = set(await self.index.retrieve(tenant_id, list(restored)))
            by_time: dict[float, list[str]] = {}
            for memory_id in sorted(present):
                by_time.setdefault(restored[memory_id], []).append(memory_id)
            for superseded_at, ids in by_time.items():
                await self.index.set_payload(tenant_id, ids, {"superseded_at": superseded_at})
            await self.graph.tenant(tenant_id).mark_indexed(sorted(present))
        except BackendError:  # they stay unindexed: the reconciler finishes them
            log.exception("payload update after an erase failed; the reconciler finishes it")

    async def _verify_erased(self, tenant_id: str, ids: Sequence[str]) -> bool:
        """True when neither engine holds an erased memory. A point re-created meanwhile (a
        re-index racing the erase) is an orphan now: it is deleted here."""
        if not ids:
            return True
        if await self.index.retrieve(tenant_id, ids):
            await self.index.delete(tenant_id, ids)
        left = await self.graph.tenant(tenant_id).existing_memory_ids(ids)
        return not left and not await self.index.retrieve(tenant_id, ids)

    async def _reprofile(
        self, tenant_id: str, entity_ids: Sequence[str], reprofile: Reprofile | None
    ) -> int:
        if not entity_ids or reprofile is None:
            return 0
        try:
            await reprofile(tenant_id, entity_ids)
        except BackendError:  # the profiles stay cleared and stale: the lifecycle rebuilds them
            log.exception("re-profiling after an erase failed; the lifecycle finishes it")
            return 0
        await self.graph.tenant(tenant_id).clear_stale(entity_ids)
        return len(entity_ids)
