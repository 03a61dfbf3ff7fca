"""GraphQL documents: `ingestDocument` and `documentJob` (a large document is ingested in the
background)."""

from __future__ import annotations

from datetime import datetime
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import EntityNode, MemoryNode
from core.clock import to_datetime
from core.ingest_types import DocumentJob as CoreDocumentJob
from core.ingest_types import DocumentJobStatus as CoreDocumentJobStatus

strawberry.enum(CoreDocumentJobStatus, name="DocumentJobStatus")
DocumentJobStatus = CoreDocumentJobStatus

Info = strawberry.Info[Context, None]


@strawberry.type
class DocumentResult:
    document_id: strawberry.ID
    source_path: str
    version: int
    unchanged: bool = strawberry.field(description="Same content hash as before: nothing done.")
    chunks: list[MemoryNode]
    superseded: int = strawberry.field(description="Chunks of the previous version superseded.")
    entities: list[EntityNode]


@strawberry.type(description="What a finished document job did.")
class DocumentJobResult:
    document_id: strawberry.ID
    version: int
    unchanged: bool
    superseded: int
    chunk_count: int


@strawberry.type(
    description="A large document ingested in the background; read it with documentJob(id)."
)
class DocumentJob:
    id: strawberry.ID
    source_path: str
    status: DocumentJobStatus
    progress: float = strawberry.field(description="0 to 1: chunks written, then published.")
    chunks_done: int
    chunks_total: int
    error: str | None
    created_at: datetime | None
    updated_at: datetime | None
    result: DocumentJobResult | None

    @classmethod
    def of(cls, job: CoreDocumentJob) -> DocumentJob:
        done = job.status is CoreDocumentJobStatus.DONE and job.document_id is not None
        return cls(
            id=strawberry.ID(job.id),
            source_path=job.source_path,
            status=job.status,
            progress=job.progress,
            chunks_done=job.chunks_done,
            chunks_total=job.chunks_total,
            error=job.error,
            created_at=to_datetime(job.created_at),
            updated_at=to_datetime(job.updated_at),
            result=DocumentJobResult(
                document_id=strawberry.ID(job.document_id or ""),
                version=job.version or 0,
                unchanged=job.unchanged,
                superseded=job.superseded,
                chunk_count=job.chunks_total,
            )
            if done
            else None,
        )


@strawberry.input
class IngestDocumentInput:
    source_path: str
    text: str
    project_id: str | None = None


DocumentResultUnion = Annotated[
    DocumentResult | DocumentJob | InvalidInputError | ForbiddenError,
    strawberry.union("IngestDocumentResult"),
]


DocumentJobUnion = Annotated[
    DocumentJob | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("DocumentJobResultUnion"),
]


@strawberry.type
class DocumentQuery:
    @strawberry.field(description="A background document ingest: status, progress, result.")
    async def document_job(self, info: Info, id: strawberry.ID) -> DocumentJobUnion:
        ctx = info.context
        return DocumentJob.of(await ctx.brain.ingest.document_jobs.get(ctx.tenant, str(id)))


@strawberry.type
class DocumentMutation:
    @strawberry.mutation(
        description="Chunk, embed and link a document; an unchanged hash is a no-op and a "
        "changed one supersedes the previous version's chunks. A document longer than "
        "ingest.document_job_chars is ingested in the background: a DocumentJob comes back "
        "at once (read it with documentJob)."
    )
    async def ingest_document(self, info: Info, input: IngestDocumentInput) -> DocumentResultUnion:
        ctx = info.context
        r = await ctx.brain.ingest.ingest_document_or_job(
            ctx.tenant, input.source_path, input.text, input.project_id
        )
        if isinstance(r, CoreDocumentJob):
            return DocumentJob.of(r)
        return DocumentResult(
            document_id=strawberry.ID(r.document.id),
            source_path=r.document.source_path,
            version=r.document.version,
            unchanged=r.unchanged,
            chunks=[MemoryNode.of(m) for m in r.chunks],
            superseded=r.superseded,
            entities=[EntityNode.of(e) for e in r.entities],
        )
