"""IngestService: the write side in one object, built from the engines and a resolver.

    service = IngestService.build(settings, graph, index, embedder, resolver,
                                  profile_refresh=resolver.refresh_profiles)
    await service.start()                      # resume persisted jobs, start the workers
    result = await service.turns.record_turn("acme", TurnInput(session_id="s1", content="..."))
    await service.stop()

It owns the job queue and registers its handlers: ``profile_refresh`` (when a refresher is
given) and ``llm_extract`` (when ``settings.ingest.llm.provider`` is not "none").
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable, Mapping, Sequence
from typing import Any

import httpx

from core.clock import now
from core.errors import BackendError, NotFound
from core.ids import check_id
from core.ingest_types import (
    DocumentJob,
    DocumentResult,
    FactConflict,
)
from core.settings import Settings
from graph.store import GraphStore
from ingest.documents import DocumentIngester, Progress
from ingest.jobs.document_jobs import DocumentJobs
from ingest.jobs.llm import LLMExtractor, build_llm_extractor
from ingest.jobs.llm_job import LLMExtractJob
from ingest.jobs.queue import JobQueue
from ingest.tasks import TaskService
from ingest.turns import LLM_JOB, PROFILE_JOB, TurnRecorder
from ingest.write.writer import MemoryWriter
from resolution.types import EntityResolver
from vectors.embedding.embedder import Embedder
from vectors.vector_index import VectorIndex

log = logging.getLogger(__name__)

ProfileRefresh = Callable[[str, Sequence[str]], Awaitable[object]]


class IngestService:
    """recordTurn, closeSession, workingMemory, ingestDocument, tasks and their lifecycle."""

    def __init__(
        self,
        settings: Settings,
        writer: MemoryWriter,
        resolver: EntityResolver,
        queue: JobQueue,
        llm: LLMExtractor | None = None,
        profile_refresh: ProfileRefresh | None = None,
    ) -> None:
        self.settings = settings
        self.writer = writer
        self.queue = queue
        self.llm = llm
        self.turns = TurnRecorder(
            settings, writer.graph, writer, resolver, queue, llm_enabled=llm is not None
        )
        self.documents = DocumentIngester(settings, writer, resolver)
        self.document_jobs = DocumentJobs(
            writer.graph, self.documents, settings.ingest, self._after_document
        )
        self.tasks = TaskService(writer.sync, settings.ingest)
        if profile_refresh is not None:
            refresh = profile_refresh

            async def refresh_profiles(tenant_id: str, payload: Mapping[str, Any]) -> None:
                await refresh(tenant_id, [str(i) for i in payload.get("entity_ids", [])])

            queue.register(
                PROFILE_JOB,
                refresh_profiles,
                merge=_union_of_entity_ids,
                settle=settings.ingest.profile_refresh_settle,
                duty=settings.ingest.profile_refresh_duty,
            )
        if llm is not None:
            queue.register(LLM_JOB, LLMExtractJob(writer, resolver, llm, self.turns.planner))

    @classmethod
    def build(
        cls,
        settings: Settings,
        graph: GraphStore,
        index: VectorIndex,
        embedder: Embedder,
        resolver: EntityResolver,
        profile_refresh: ProfileRefresh | None = None,
        llm_transport: httpx.AsyncBaseTransport | None = None,
    ) -> IngestService:
        writer = MemoryWriter(graph, index, embedder, settings.limits)
        queue = JobQueue(graph, settings.ingest)
        llm = build_llm_extractor(settings.ingest.llm, llm_transport)
        return cls(settings, writer, resolver, queue, llm, profile_refresh)

    async def start(self, tenants: Sequence[str] | None = None) -> int:
        """Start the queue and resume pending jobs (of ``tenants``, default all)."""
        return await self.queue.start(tenants)

    async def stop(self) -> None:
        await self.document_jobs.stop()  # a running document job reads as failed later
        await self.writer.sync.marks.flush()  # indexed marks of the last turns
        await self.queue.stop()
        if self.llm is not None:
            await self.llm.close()

    # -- turns ---------------------------------------------------------------------------------

    # -- documents -----------------------------------------------------------------------------

    async def ingest_document(
        self,
        tenant_id: str,
        source_path: str,
        text: str,
        project_id: str | None = None,
        progress: Progress | None = None,
    ) -> DocumentResult:
        """Ingest a document now (``progress(done, total)`` hears of each batch of a long one)."""
        result = await self.documents.ingest_document(
            tenant_id, source_path, text, project_id, progress
        )
        await self._after_document(tenant_id, result)
        return result

    async def ingest_document_or_job(
        self, tenant_id: str, source_path: str, text: str, project_id: str | None = None
    ) -> DocumentResult | DocumentJob:
        """A document up to ``ingest.document_job_chars`` is ingested now; a longer one is
        validated and ingested in the background: its ``DocumentJob`` comes back at once."""
        if self.document_jobs.is_large(text):
            return await self.document_jobs.submit(tenant_id, source_path, text, project_id)
        return await self.ingest_document(tenant_id, source_path, text, project_id)

    async def _after_document(self, tenant_id: str, result: DocumentResult) -> None:
        await self.refresh_profiles_later(tenant_id, [e.id for e in result.entities])

    async def refresh_profiles_later(self, tenant_id: str, entity_ids: Sequence[str]) -> None:
        """Queue a profile refresh of these entities after a write that is not a turn (a turn
        queues its own in its transaction). The write is already durable: if the job cannot
        be stored, the lifecycle's reprofile job catches up, and this only logs."""
        ids = list(dict.fromkeys(entity_ids))
        if not ids or not self.queue.handles(PROFILE_JOB):
            return
        try:
            await self.queue.enqueue(tenant_id, PROFILE_JOB, {"entity_ids": ids})
        except BackendError:
            log.warning("could not queue a profile refresh of %d entities", len(ids), exc_info=True)

    # -- tasks and conflicts -------------------------------------------------------------------

    async def conflicts(self, tenant_id: str, open_only: bool = True) -> list[FactConflict]:
        return await self.writer.graph.tenant(tenant_id).conflicts(open_only)

    async def resolve_conflict(self, tenant_id: str, conflict_id: str) -> FactConflict:
        """Mark a recorded contradiction as reviewed; NotFound for unknown ids."""
        found = await self.writer.graph.tenant(tenant_id).resolve_conflict(
            check_id(conflict_id, "conflictId"), now()
        )
        if found is None:
            raise NotFound("conflict", conflict_id)
        return found


def _union_of_entity_ids(payloads: Sequence[Mapping[str, Any]]) -> dict[str, Any]:
    """Profile refreshes merge into one of every entity they name (first-named first)."""
    ids = [str(i) for p in payloads for i in p.get("entity_ids", [])]
    return {"entity_ids": list(dict.fromkeys(ids))}
