"""GraphQL operations of the write side: turns, sessions, documents, tasks."""

from __future__ import annotations

from typing import Annotated

import strawberry
from pydantic import ValidationError

from api.context import Context
from api.gql.entities import EntityNode
from api.gql.errors import (
    ConflictError,
    ForbiddenError,
    InvalidInputError,
    NotFoundError,
    guarded,
)
from api.gql.turns import (
    Clarification,
    DocumentJob,
    DocumentResult,
    IngestDocumentInput,
    RecordTurnInput,
    SessionNode,
    TaskList,
    TaskNode,
    TaskStatus,
    TurnResult,
)
from api.gql.types import MemoryNode
from core.clock import to_epoch
from core.errors import InvalidInput
from core.ids import check_id
from core.ingest_types import DocumentJob as CoreDocumentJob
from core.ingest_types import TurnInput
from core.validation import invalid_input

Info = strawberry.Info[Context, None]

RecordTurnResult = Annotated[
    TurnResult | InvalidInputError | ForbiddenError, strawberry.union("RecordTurnResult")
]
SessionResult = Annotated[
    SessionNode | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("SessionResult"),
]
DocumentResultUnion = Annotated[
    DocumentResult | DocumentJob | InvalidInputError | ForbiddenError,
    strawberry.union("IngestDocumentResult"),
]
DocumentJobResult = Annotated[
    DocumentJob | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("DocumentJobResultUnion"),
]
TaskResult = Annotated[
    TaskNode | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("TaskResult"),
]
TasksResult = Annotated[
    TaskList | InvalidInputError | ForbiddenError, strawberry.union("TasksResult")
]


@strawberry.type
class IngestQuery:
    @strawberry.field(description="Candidate and tracked tasks, newest first.")
    async def tasks(
        self, info: Info, status: TaskStatus | None = None, first: int = 50
    ) -> TasksResult:
        ctx = info.context

        async def run() -> TaskList:
            if not 1 <= first <= ctx.brain.settings.api.max_page_size:
                raise InvalidInput("first is out of range", field="first")
            tasks = await ctx.brain.ingest.tasks(ctx.tenant, status, first)
            return TaskList(tasks=[TaskNode.of(t) for t in tasks])

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="A background document ingest: status, progress, result.")
    async def document_job(self, info: Info, id: strawberry.ID) -> DocumentJobResult:
        ctx = info.context

        async def run() -> DocumentJob:
            return DocumentJob.of(await ctx.brain.ingest.document_job(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]


@strawberry.type
class IngestMutation:
    @strawberry.mutation(
        description="The main write path: store the turn, extract memories, entities and tasks. "
        "Everything returned is retrievable on the next call."
    )
    async def record_turn(self, info: Info, input: RecordTurnInput) -> RecordTurnResult:
        ctx = info.context

        async def run() -> TurnResult:
            try:
                turn = TurnInput(
                    session_id=input.session_id,
                    user_id=input.user_id,
                    project_id=input.project_id,
                    role=input.role,
                    speaker=input.speaker,
                    content=input.content,
                    at=to_epoch(input.at),
                )
            except ValidationError as e:
                raise invalid_input(e) from None
            result = await ctx.brain.ingest.record_turn(ctx.tenant, turn)
            return TurnResult(
                episode=MemoryNode.of(result.episode),
                extracted=[MemoryNode.of(m) for m in result.extracted],
                entities=[EntityNode.of(e) for e in result.entities],
                tasks=[TaskNode.of(t) for t in result.tasks],
                clarification=Clarification.of(result.clarification),
                superseded_ids=[strawberry.ID(i) for i in result.superseded],
            )

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Close a session: its working memory is flushed.")
    async def close_session(self, info: Info, session_id: str) -> SessionResult:
        ctx = info.context

        async def run() -> SessionNode:
            return SessionNode.of(await ctx.brain.close_session(ctx.tenant, session_id))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(
        description="Chunk, embed and link a document; an unchanged hash is a no-op and a "
        "changed one supersedes the previous version's chunks. A document longer than "
        "ingest.document_job_chars is ingested in the background: a DocumentJob comes back "
        "at once (read it with documentJob)."
    )
    async def ingest_document(self, info: Info, input: IngestDocumentInput) -> DocumentResultUnion:
        ctx = info.context

        async def run() -> DocumentResult | DocumentJob:
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

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Confirm a candidate task.")
    async def confirm_task(self, info: Info, id: strawberry.ID) -> TaskResult:
        ctx = info.context

        async def run() -> TaskNode:
            task = await ctx.brain.ingest.confirm_task(ctx.tenant, check_id(str(id)))
            return TaskNode.of(task)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.mutation(description="Dismiss a candidate task.")
    async def dismiss_task(self, info: Info, id: strawberry.ID) -> TaskResult:
        ctx = info.context

        async def run() -> TaskNode:
            task = await ctx.brain.ingest.dismiss_task(ctx.tenant, check_id(str(id)))
            return TaskNode.of(task)

        return await guarded(run)  # type: ignore[no-any-return]
