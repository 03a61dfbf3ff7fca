"""The application facade: one object that owns the engines and offers every operation.

GraphQL resolvers and the CLI call this; they never touch Cypher or Qdrant. Every method takes
the tenant first, which the API takes from the caller's key.

    brain = await Brain.open(Settings())
    memory = await brain.remember("acme", NewMemory(content="Peter is a writer at WOBS"))
    result = await brain.search("acme", SearchQuery(query="who writes for WOBS?"))
    await brain.close()
"""

from __future__ import annotations

import logging
import time
from collections.abc import AsyncIterator, Callable, Sequence
from typing import Any

from api.admin import Administration
from api.brain_counts import Counts, listing_scope
from api.brain_entities import DescribedQuestion, EntityOperations
from api.brain_memories import MemoryWrites
from api.disk import DiskPurge
from api.health import Health, HealthCheck
from api.transfer import TenantTransfer
from api.viz import VizQuery, VizView, viz_graph
from core.clock import now
from core.ids import check_id
from core.ingest_types import (
    DocumentJob,
    DocumentResult,
    Session,
    Task,
    TaskStatus,
    TurnInput,
)
from core.lifecycle_types import (
    ConsolidationReport,
    FeedbackOutcome,
    FeedbackResult,
    JobName,
    JobRun,
    MemoryMerge,
)
from core.resolution_types import IdentityDecision
from core.retrieval_types import (
    AssembledContext,
    ContextRequest,
    SearchMode,
    SearchQuery,
    SearchResponse,
)
from core.settings import Settings
from core.tokens import token_counter
from core.types import (
    Entity,
    EntityMerge,
    EntityRelation,
    EntityType,
    EraseReport,
    LineageLink,
    Memory,
    MemoryType,
    NewMemory,
)
from graph.runtime import GraphRuntime, open_graph
from graph.store import GraphStore
from graph.supervisor import EngineSupervisor
from ingest.lifecycle.service import LifecycleService
from ingest.service import IngestService
from ingest.turns import TurnResult
from ingest.write.reconcile import ReconcileReport, reconcile
from resolution.profiles import ReprofileReport
from resolution.reads import ReadResolver
from resolution.resolver import Resolver
from resolution.types import Resolution
from retrieval.access import AccessRecorder
from retrieval.assembly import ContextAssembler
from retrieval.reads import Reads
from retrieval.retriever import Retriever
from vectors.embedding.embedder import Embedder
from vectors.factory import build_embedder, build_vector_index
from vectors.vector_index import VectorIndex

log = logging.getLogger(__name__)


class Brain:
    """Owns the engines and the services built on them (a plain composition: each service
    gets what it needs in its constructor); every public method is an operation."""

    def __init__(
        self,
        settings: Settings,
        graph: GraphStore,
        index: VectorIndex,
        embedder: Embedder,
        runtime: GraphRuntime | None = None,
    ) -> None:
        self.settings = settings
        self.graph = graph
        self.index = index
        self.embedder = embedder
        self.resolver = Resolver(
            graph, embedder, settings.resolution, max_text_chars=settings.limits.max_content_chars
        )
        r = settings.retrieval
        self.access = AccessRecorder(graph, r.access_flush_seconds, r.access_max_pending)
        self.retriever = Retriever(graph, index, embedder, r, settings.limits, self.access)
        self.assembler = ContextAssembler(self.retriever, token_counter())
        references = ReadResolver(self.resolver)
        self.reads = Reads(graph, references, self.retriever, self.assembler, r)
        self.ingest = IngestService.build(
            settings, graph, index, embedder, self.resolver, self.resolver.refresh_profiles
        )
        # One writer (and its IndexSync) for every write of this process, turns and all.
        self.writer = self.ingest.writer
        self.lifecycle = LifecycleService(
            self.writer,
            settings.lifecycle,
            self._reprofile_ids,
            self.ingest.llm.client if self.ingest.llm is not None else None,
        )
        self.entity_ops = EntityOperations(graph, self.resolver)
        self.transfer = TenantTransfer(graph, self._forget_cached, self.reconcile)
        self.health_check = HealthCheck(graph, index, runtime, settings.graph.uri)
        self.admin = Administration(graph, index)
        self.counts = Counts(graph)  # the listings' totalCount
        self._runtime = runtime
        self.disk = DiskPurge(settings, index, runtime)  # erased data off the engines' files
        self.memory_writes = MemoryWrites(
            self.ingest, self.resolver, self.retriever.core, self.disk
        )
        if runtime is not None and runtime.supervisor is not None:
            # Writes the engine's exit cut short are finished as after any crash.
            runtime.supervisor.on_restart = self.reconcile
        self.started_at = time.time()

    @property
    def engine_supervisor(self) -> EngineSupervisor | None:
        """The embedded graph engine's supervisor (None with a graph server)."""
        return self._runtime.supervisor if self._runtime is not None else None

    @classmethod
    async def open(cls, settings: Settings) -> Brain:
        """Start or connect to the engines, install the schema and reconcile the index."""
        settings.data_dir.mkdir(parents=True, exist_ok=True)
        runtime = await open_graph(settings)
        try:
            embedder = build_embedder(settings.embedder)
            index = build_vector_index(settings, embedder.dimension)
            await index.open()
            brain = cls(settings, runtime.store, index, embedder, runtime)
            await brain.embedder.embed_query("warm up")  # load the models now, not on a request
            await brain.resolver.load()
            await brain.ingest.start()  # resumes jobs a previous process left pending
            if settings.reconcile_on_start:
                await brain.reconcile()
            await brain.disk.settle()  # an index rebuild an erase owed when we last stopped
            # Before serving: the embedded shard optimizes only when asked, and blocks meanwhile.
            await index.optimize()
        except BaseException:
            await runtime.close()
            raise
        return brain

    async def close(self) -> None:
        if self.engine_supervisor is not None:
            await self.engine_supervisor.stop()  # no restart (or its reconcile) from here on
        await self.lifecycle.scheduler.stop()  # an interrupted job resumes at its next run
        await self.ingest.stop()  # pending jobs stay in the graph and resume at the next start
        await self.resolver.close()  # background cache renewals
        await self.access.close()  # flush batched access counts
        await self.disk.settle()  # nothing writes now: purge erased keys from the indexes
        await self.index.close()
        await self.embedder.close()
        if self._runtime is not None:
            await self._runtime.close()

    # -- memories ------------------------------------------------------------------------------

    async def remember(self, tenant_id: str, item: NewMemory) -> Memory:
        return (await self.remember_many(tenant_id, [item]))[0]

    async def remember_many(self, tenant_id: str, items: Sequence[NewMemory]) -> list[Memory]:
        return await self.memory_writes.remember_many(tenant_id, items)

    async def memory(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.graph.tenant(tenant_id).get_memory(check_id(memory_id))

    async def memories(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Memory]:
        return await self.graph.tenant(tenant_id).get_memories([check_id(i) for i in ids])

    async def supersede(
        self, tenant_id: str, memory_id: str, content: str, reason: str | None = None
    ) -> Memory:
        return await self.memory_writes.supersede(tenant_id, memory_id, content, reason)

    async def lineage(self, tenant_id: str, memory_id: str) -> list[LineageLink]:
        return await self.graph.tenant(tenant_id).chain(check_id(memory_id))

    async def entity_lineage(
        self, tenant_id: str, entity_id: str, predicate: str | None = None
    ) -> list[list[LineageLink]]:
        """Supersede chains of the facts about an entity, oldest chain first."""
        tenant = self.graph.tenant(tenant_id)
        await tenant.get_entity(check_id(entity_id, "entityId"))
        return await tenant.entity_chains(entity_id, predicate)

    async def forget(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.memory_writes.forget(tenant_id, memory_id)

    async def erase(
        self,
        tenant_id: str,
        memory_ids: Sequence[str] = (),
        entity_id: str | None = None,
        user_id: str | None = None,
    ) -> EraseReport:
        """GDPR hard delete of a subject from both engines (see ``MemoryWriter.erase``); the
        profiles of surviving entities that mentioned it are rebuilt before this returns."""
        return await self.memory_writes.erase(tenant_id, memory_ids, entity_id, user_id)

    # -- resolution ----------------------------------------------------------------------------

    async def resolve(self, tenant_id: str, text: str, session_id: str | None = None) -> Resolution:
        """What the parser and resolver make of ``text`` (a read: nothing is created, and the
        session's entity tracker is consulted but not advanced)."""
        return await self.resolver.resolve(
            tenant_id, text, session_id=session_id, create_missing=False, update_session=False
        )

    async def reprofile_entities(
        self,
        tenant_id: str,
        ids: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReprofileReport:
        """Rebuild living profiles (summary, embedding, tags) of ``ids`` or the whole tenant."""
        checked = [check_id(i, "ids") for i in ids] if ids else None
        return await self.resolver.profiles.reprofile_entities(
            tenant_id, checked, progress=progress
        )

    async def search(self, tenant_id: str, query: SearchQuery) -> SearchResponse:
        """Multi-path search (``retrieval/reads.py``)."""
        return await self.reads.search(tenant_id, query)

    async def assemble_context(
        self,
        tenant_id: str,
        session_id: str,
        user_id: str | None = None,
        project_id: str | None = None,
        query: str | None = None,
        token_budget: int | None = None,
        mode: SearchMode = SearchMode.ANSWER,
    ) -> AssembledContext:
        """The five token-budgeted layers for the next model call of ``session_id``."""
        request = ContextRequest(
            session_id=session_id,
            user_id=user_id,
            project_id=project_id,
            query=query,
            token_budget=token_budget,
            mode=mode,
        )
        return await self.reads.assemble_context(tenant_id, request)

    async def list_memories(
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

    # -- entities (EntityOperations) -----------------------------------------------------------

    async def entity(self, tenant_id: str, entity_id: str) -> Entity:
        return await self.entity_ops.entity(tenant_id, entity_id)

    async def entities(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Entity]:
        return await self.entity_ops.entities(tenant_id, ids)

    async def list_entities(
        self,
        tenant_id: str,
        *,
        first: int,
        after: str | None = None,
        name: str | None = None,
        type: EntityType | None = None,
        alias: str | None = None,
    ) -> list[Entity]:
        return await self.entity_ops.list_entities(
            tenant_id, first=first, after=after, name=name, type=type, alias=alias
        )

    async def create_entity(
        self, tenant_id: str, name: str, type: EntityType, aliases: Sequence[str] = ()
    ) -> Entity:
        return await self.entity_ops.create_entity(tenant_id, name, type, aliases)

    async def relationships(self, tenant_id: str, entity_id: str) -> list[EntityRelation]:
        return await self.entity_ops.relationships(tenant_id, entity_id)

    async def add_alias(self, tenant_id: str, entity_id: str, alias: str) -> Entity:
        return await self.entity_ops.add_alias(tenant_id, entity_id, alias)

    async def merge_entities(
        self,
        tenant_id: str,
        keep_id: str,
        drop_ids: Sequence[str],
        reason: str,
        by: str | None = None,
    ) -> EntityMerge:
        return await self.entity_ops.merge_entities(tenant_id, keep_id, drop_ids, reason, by)

    async def unmerge_entities(self, tenant_id: str, merge_id: str) -> EntityMerge:
        return await self.entity_ops.unmerge_entities(tenant_id, merge_id)

    async def identity_questions(
        self, tenant_id: str, first: int, after: str | None = None
    ) -> list[DescribedQuestion]:
        return await self.entity_ops.identity_questions(tenant_id, first, after)

    async def identity_decisions(
        self, tenant_id: str, entity_id: str, limit: int = 50
    ) -> list[IdentityDecision]:
        return await self.entity_ops.identity_decisions(tenant_id, entity_id, limit)

    async def confirm_same_entity(
        self,
        tenant_id: str,
        entity_id: str,
        other_id: str,
        reason: str | None = None,
        by: str | None = None,
    ) -> EntityMerge:
        return await self.entity_ops.confirm_same_entity(tenant_id, entity_id, other_id, reason, by)

    async def confirm_distinct_entities(
        self, tenant_id: str, entity_id: str, other_id: str, reason: str | None = None
    ) -> None:
        return await self.entity_ops.confirm_distinct_entities(
            tenant_id, entity_id, other_id, reason
        )

    # -- sessions and the lifecycle (LifecycleService) -----------------------------------------

    async def close_session(self, tenant_id: str, session_id: str) -> Session:
        """Close a session and flush its working memory (its window ends; used turns are
        promoted, and every turn stays)."""
        session = await self.ingest.close_session(tenant_id, session_id)
        await self.lifecycle.flush_session(tenant_id, session.id)
        return session

    async def consolidate(
        self,
        tenant_id: str,
        jobs: Sequence[JobName] | None = None,
        project_id: str | None = None,
        session_id: str | None = None,
        progress: Callable[[str], None] | None = None,
    ) -> ConsolidationReport:
        """Run lifecycle jobs now (default: all) and return their reports (docs/LIFECYCLE.md)."""
        return await self.lifecycle.consolidate(tenant_id, jobs, project_id, session_id, progress)

    async def job_runs(
        self,
        tenant_id: str,
        *,
        first: int,
        before: tuple[float, str] | None = None,
        job: JobName | None = None,
    ) -> list[JobRun]:
        return await self.lifecycle.runs(tenant_id, first=first, before=before, job=job)

    async def record_feedback(
        self,
        tenant_id: str,
        session_id: str,
        memory_ids: Sequence[str],
        helpful: bool,
        outcome: FeedbackOutcome | None = None,
    ) -> FeedbackResult:
        return await self.lifecycle.feedback(tenant_id, session_id, memory_ids, helpful, outcome)

    async def memory_merges(self, tenant_id: str, memory_id: str) -> list[MemoryMerge]:
        return await self.lifecycle.merges(tenant_id, memory_id)

    async def pattern_sources(self, tenant_id: str, pattern_id: str) -> list[str]:
        """The ids of the episodes a pattern summarizes, oldest first (none for others)."""
        return await self.lifecycle.pattern_sources(tenant_id, pattern_id)

    async def unmerge_memory(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.lifecycle.unmerge(tenant_id, memory_id)

    async def _reprofile_ids(self, tenant_id: str, ids: Sequence[str]) -> int:
        report = await self.resolver.profiles.reprofile_entities(tenant_id, list(ids))
        return report.profiled

    # -- turns, documents, tasks ---------------------------------------------------------------

    async def record_turn(self, tenant_id: str, turn: TurnInput) -> TurnResult:
        """The main write path: store the turn, extract memories, entities and tasks."""
        return await self.memory_writes.record_turn(tenant_id, turn)

    async def ingest_document_or_job(
        self, tenant_id: str, source_path: str, text: str, project_id: str | None = None
    ) -> DocumentResult | DocumentJob:
        """A document now, or a large one as a background job (see ``IngestService``)."""
        return await self.ingest.ingest_document_or_job(tenant_id, source_path, text, project_id)

    async def document_job(self, tenant_id: str, job_id: str) -> DocumentJob:
        return await self.ingest.document_job(tenant_id, job_id)

    async def tasks(
        self, tenant_id: str, status: TaskStatus | None = None, limit: int = 100
    ) -> list[Task]:
        return await self.ingest.tasks(tenant_id, status, limit)

    async def confirm_task(self, tenant_id: str, task_id: str) -> Task:
        return await self.ingest.confirm_task(tenant_id, check_id(task_id))

    async def dismiss_task(self, tenant_id: str, task_id: str) -> Task:
        return await self.ingest.dismiss_task(tenant_id, check_id(task_id))

    async def viz_graph(self, tenant_id: str, query: VizQuery) -> VizView:
        """The explorer's view of a tenant (see ``api.viz``)."""
        return await viz_graph(self.graph, tenant_id, query)

    # -- core (always-injected) memory ---------------------------------------------------------

    async def core(self, tenant_id: str, user_id: str | None = None) -> list[Memory]:
        """Pinned and learned items; with ``user_id``, that user's own and the shared ones."""
        return await self.graph.tenant(tenant_id).core_memories(now(), user_id)

    async def pin_core(self, tenant_id: str, item: NewMemory) -> Memory:
        pinned = item.model_copy(update={"pinned": True})
        return await self.remember(tenant_id, pinned)

    async def update_core(self, tenant_id: str, memory_id: str, content: str) -> Memory:
        return await self.memory_writes.update_core(tenant_id, memory_id, content)

    async def unpin_core(self, tenant_id: str, memory_id: str) -> Memory:
        return await self.memory_writes.unpin_core(tenant_id, memory_id)

    # -- export / import -----------------------------------------------------------------------

    def export_tenant(self, tenant_id: str) -> AsyncIterator[dict[str, Any]]:
        """JSONL-ready records of the whole tenant (``api/transfer.py``)."""
        return self.transfer.export(tenant_id)

    async def import_tenant(
        self, tenant_id: str, records: Sequence[dict[str, Any]]
    ) -> dict[str, int]:
        """Recreate exported records in ``tenant_id`` and index them (``api/transfer.py``)."""
        return await self.transfer.import_(tenant_id, records)

    # -- administration (``brain.admin``: tenants, keys, analyst queries, doctor checks) -------

    def _forget_cached(self, tenant_id: str) -> None:
        self.resolver.names.invalidate(tenant_id)
        self.retriever.core.invalidate(tenant_id)

    # -- operations ----------------------------------------------------------------------------

    async def reconcile(self, tenants: Sequence[str] | None = None) -> ReconcileReport:
        return await reconcile(self.writer, tenants)

    async def health(self, tenant_id: str | None = None) -> Health:
        """Each engine's status; with a tenant its counts, else the index lag of all."""
        return await self.health_check.check(tenant_id)
