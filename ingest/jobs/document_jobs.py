"""Large documents as background jobs: ``ingestDocument`` answers at once with a job.

A 1.9 MB document is ~1,100 chunks: linking, embedding and writing them took minutes, and in
one request that held the model and one huge transaction, a ``remember`` of the same tenant
waited 80 s behind it. A document longer than ``ingest.document_job_chars`` is validated, then
handed to a task of this process; the caller gets a ``DocumentJob`` (queued) and reads it with
``documentJob(id)``. The ingest (``ingest/documents.py``) works ``document_batch_chunks``
chunks at a time: each batch is one short transaction of hidden chunks (and one turn of the
embedding model), so the tenant's other writes go in between; the version's last transaction
publishes the chunks, supersedes the old ones and saves the document.

The job's record is a ``(:DocumentJob)`` node updated after every batch, so any replica can
answer ``documentJob``. The text is not kept: a job whose process died is reported failed
once its record is ``document_job_stale_seconds`` old (its hidden chunks stay hidden), and
the document must be sent again.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable
from typing import Any

from core.clock import now
from core.errors import BrainError, NotFound
from core.ids import check_id, new_id
from core.ingest_types import DocumentJob, DocumentJobStatus, DocumentResult
from core.settings import IngestSettings
from graph.store import GraphStore
from ingest.documents import DocumentIngester
from vectors.embedding.embedder import in_background

log = logging.getLogger(__name__)

# Runs after a job's document is ingested (the service queues the entities' profile refresh).
AfterIngest = Callable[[str, DocumentResult], Awaitable[object]]


class DocumentJobs:
    """Starts and reports background document ingests of this process."""

    def __init__(
        self,
        graph: GraphStore,
        documents: DocumentIngester,
        settings: IngestSettings,
        after: AfterIngest | None = None,
    ) -> None:
        self.graph = graph
        self.documents = documents
        self.settings = settings
        self.after = after
        self._tasks: set[asyncio.Task[None]] = set()

    def is_large(self, text: object) -> bool:
        return isinstance(text, str) and len(text) > self.settings.document_job_chars

    async def submit(
        self, tenant_id: str, source_path: str, text: str, project_id: str | None = None
    ) -> DocumentJob:
        """Validate the document, record a queued job and start it; returns at once."""
        path = self.documents.check(source_path, text, project_id)
        at = now()
        job = DocumentJob(id=new_id(), source_path=path, created_at=at, updated_at=at)
        await self._save(tenant_id, job)
        task = asyncio.create_task(self._run(tenant_id, job, text, project_id))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return job

    async def get(self, tenant_id: str, job_id: str) -> DocumentJob:
        """The job's state; another tenant's job is not found."""
        job = await self.graph.tenant(tenant_id).get_document_job(check_id(job_id))
        if job is None:
            raise NotFound("documentJob", job_id)
        running = job.status in (DocumentJobStatus.QUEUED, DocumentJobStatus.RUNNING)
        if running and now() - job.updated_at > self.settings.document_job_stale_seconds:
            return job.model_copy(
                update={
                    "status": DocumentJobStatus.FAILED,
                    "error": "interrupted (its process stopped): send the document again",
                }
            )
        return job

    async def wait(self) -> None:
        """Wait for this process's running jobs (tests, and a graceful stop)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def stop(self) -> None:
        """Cancel running jobs; their records go stale and read as failed."""
        for task in list(self._tasks):
            task.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)

    async def _run(
        self, tenant_id: str, job: DocumentJob, text: str, project_id: str | None
    ) -> None:
        in_background()  # the caller has its job id, not the chunks: they yield to requests

        async def progress(done: int, total: int) -> None:
            nonlocal job
            job = job.model_copy(
                update={
                    "status": DocumentJobStatus.RUNNING,
                    "chunks_done": done,
                    "chunks_total": total,
                    "progress": round(0.95 * done / total, 4),  # the publish is the rest
                    "updated_at": now(),
                }
            )
            await self._save(tenant_id, job)

        try:
            await self._save(
                tenant_id, job := job.model_copy(update={"status": DocumentJobStatus.RUNNING})
            )
            result = await self.documents.ingest_document(
                tenant_id, job.source_path, text, project_id, progress
            )
            if self.after is not None:
                await self.after(tenant_id, result)
            job = job.model_copy(update=_done(result))
        except BrainError as e:
            job = job.model_copy(update={"status": DocumentJobStatus.FAILED, "error": e.message})
        except Exception as e:  # unexpected: logged; the job says it failed
            log.exception("document job %s failed", job.id)
            job = job.model_copy(update={"status": DocumentJobStatus.FAILED, "error": repr(e)})
        job = job.model_copy(update={"updated_at": now()})
        try:
            await self._save(tenant_id, job)
        except BrainError:
            log.exception("document job %s: its final state could not be saved", job.id)

    async def _save(self, tenant_id: str, job: DocumentJob) -> None:
        props = {k: v for k, v in job.model_dump(mode="json").items() if v is not None}
        await self.graph.tenant(tenant_id).save_document_job(job.id, props)


def _done(result: DocumentResult) -> dict[str, Any]:
    chunks = len(result.chunks)
    return {
        "status": DocumentJobStatus.DONE,
        "progress": 1.0,
        "chunks_done": chunks,
        "chunks_total": chunks,
        "document_id": result.document.id,
        "version": result.document.version,
        "unchanged": result.unchanged,
        "superseded": result.superseded,
    }
