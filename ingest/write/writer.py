"""The memory operations of the API: remember, supersede, forget and erase.

The graph is the system of record. Each operation validates its input, writes the graph
(new and changed memories ``indexed=false``), then has ``IndexSync`` (``ingest/write/sync.py``)
make the vector index agree and mark them indexed. A crash between the steps leaves unindexed
memories that the reconciler finishes: nothing is lost, and nothing is in the vector index
that the graph does not know.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence

from core.clock import now, to_epoch
from core.disk_scan import Needles
from core.errors import BackendError, InvalidInput, NotFound
from core.ids import check_ids, new_id
from core.settings import LimitSettings
from core.text import content_hash
from core.types import DiskCheck, EraseReport, Memory, MemoryType, NewMemory, default_decay
from core.validation import check_batch, check_content, check_project_id
from graph.store import GraphStore
from ingest.write.ordering import StatementLocks
from ingest.write.sync import IndexSync
from vectors.embedding.embedder import Embedder
from vectors.vector_index import VectorIndex

log = logging.getLogger(__name__)

# Rebuilds the profiles of these entities of a tenant (``ProfileBuilder.reprofile_entities``).
Reprofile = Callable[[str, Sequence[str]], Awaitable[object]]
# Compacts the engines' files and looks for what an erase removed
# (``ingest.write.disk_purge.DiskPurge``).
Purge = Callable[[Needles], Awaitable[DiskCheck]]


class MemoryWriter:
    """Stores, supersedes, forgets and erases memories in both engines, graph first; owns the
    ``IndexSync`` every other writer (turns, documents, tasks, lifecycle jobs) goes through."""

    def __init__(
        self, graph: GraphStore, index: VectorIndex, embedder: Embedder, limits: LimitSettings
    ) -> None:
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.limits = limits
        self.sync = IndexSync(graph, index, embedder)
        # Held by ingest writes from reading what they change to writing it, per statement
        # (a fact's subject and predicate, a task, a document path), so writes of this
        # process that change the same thing take turns (turns, LLM jobs, documents).
        self.statements = StatementLocks()

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
            statements=tuple(item.statements),
            slot=item.slot,
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
        tenant_id = memories[0].tenant_id
        await self.graph.tenant(tenant_id).create_memories(memories)
        await self.sync.show(tenant_id, new=memories)

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
        await self.sync.show(
            tenant_id, new=[created], changes={old_id: {"superseded_at": old_now.superseded_at}}
        )
        return created.model_copy(update={"indexed": True})

    async def forget(self, tenant_id: str, memory_id: str) -> Memory:
        """Soft delete: the memory stays in the graph (and its lineage) but leaves every read."""
        tenant = self.graph.tenant(tenant_id)
        await tenant.get_memory(memory_id)
        when = now()
        await tenant.forget([memory_id], when)
        await self.sync.show(tenant_id, changes={memory_id: {"expires_at": when}})
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

        points = await self.sync.remove(tenant_id, ids)
        done = await tenant.erase_graph(ids, entities, user_id, affected)
        await self._show_restored(tenant_id, done.restored)
        verified = await self.sync.removed(tenant_id, ids)
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
        changes = {i: {"superseded_at": at} for i, at in sorted(restored.items())}
        try:
            await self.sync.show(tenant_id, changes=changes, present_only=True)
        except BackendError:  # they stay unindexed: the reconciler finishes them
            log.exception("payload update after an erase failed; the reconciler finishes it")

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
