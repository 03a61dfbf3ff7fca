"""GraphQL types of the turn pipeline: turns, sessions, tasks, documents, resolution, context."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.gql.entities import EntityNode
from api.gql.types import MemoryNode, SearchMode
from core.clock import to_datetime
from core.ingest_types import DocumentJob as CoreDocumentJob
from core.ingest_types import DocumentJobStatus as CoreDocumentJobStatus
from core.ingest_types import Role as CoreRole
from core.ingest_types import Session as CoreSession
from core.ingest_types import Task as CoreTask
from core.ingest_types import TaskPriority as CoreTaskPriority
from core.ingest_types import TaskStatus as CoreTaskStatus
from core.resolution_types import Clarification as CoreClarification
from core.retrieval_types import Layer as CoreLayer

strawberry.enum(CoreRole, name="Role")
strawberry.enum(CoreTaskStatus, name="TaskStatus")
strawberry.enum(CoreTaskPriority, name="TaskPriority")
strawberry.enum(CoreLayer, name="ContextLayer")
strawberry.enum(CoreDocumentJobStatus, name="DocumentJobStatus")
Role = CoreRole
TaskStatus = CoreTaskStatus
TaskPriority = CoreTaskPriority
ContextLayer = CoreLayer
DocumentJobStatus = CoreDocumentJobStatus


@strawberry.type(name="Task")
class TaskNode:
    id: strawberry.ID
    content: str
    status: TaskStatus
    priority: TaskPriority
    confidence: float
    mentions: int
    created_at: datetime | None
    updated_at: datetime | None
    session_id: str | None
    project_id: str | None
    entity_ids: list[strawberry.ID]

    @staticmethod
    def of(t: CoreTask) -> TaskNode:
        return TaskNode(
            id=strawberry.ID(t.id),
            content=t.content,
            status=t.status,
            priority=t.priority,
            confidence=t.confidence,
            mentions=t.mentions,
            created_at=to_datetime(t.created_at),
            updated_at=to_datetime(t.updated_at),
            session_id=t.session_id,
            project_id=t.project_id,
            entity_ids=[strawberry.ID(e) for e in t.entity_ids],
        )


@strawberry.type
class Clarification:
    question: str
    mention: str
    candidates: list[EntityNode]
    descriptions: list[str] = strawberry.field(
        description="One per candidate, what tells them apart: "
        '"Sarah, designer at Brightpath Media" / "Sarah Okafor, head of procurement at '
        'Dunmore Foods".'
    )

    @staticmethod
    def of(c: CoreClarification | None) -> Clarification | None:
        if c is None:
            return None
        return Clarification(
            question=c.question,
            mention=c.mention,
            candidates=[EntityNode.of(e) for e in c.candidates],
            descriptions=list(c.descriptions) or [e.name for e in c.candidates],
        )


@strawberry.type(name="Session")
class SessionNode:
    id: str
    user_id: str | None
    project_id: str | None
    started_at: datetime | None
    last_turn_at: datetime | None
    expires_at: datetime | None
    closed_at: datetime | None
    turn_count: int

    @staticmethod
    def of(s: CoreSession) -> SessionNode:
        return SessionNode(
            id=s.id,
            user_id=s.user_id,
            project_id=s.project_id,
            started_at=to_datetime(s.started_at),
            last_turn_at=to_datetime(s.last_turn_at),
            expires_at=to_datetime(s.expires_at),
            closed_at=to_datetime(s.closed_at),
            turn_count=s.turn_count,
        )


@strawberry.type
class TurnResult:
    episode: MemoryNode = strawberry.field(description="The turn's own episodic memory.")
    extracted: list[MemoryNode]
    entities: list[EntityNode]
    tasks: list[TaskNode]
    clarification: Clarification | None
    superseded_ids: list[strawberry.ID] = strawberry.field(
        description="Memories this turn's corrections replaced."
    )


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


@strawberry.type
class TaskList:
    tasks: list[TaskNode]


@strawberry.type
class Reference:
    text: str
    start: int
    end: int
    entity_type: str | None
    source: str
    entity: EntityNode | None
    confidence: float
    method: str
    candidates: list[EntityNode]


@strawberry.type
class TimeReference:
    text: str
    start: datetime | None
    end: datetime | None


@strawberry.type
class ResolveResult:
    references: list[Reference]
    entities: list[EntityNode]
    times: list[TimeReference]
    ambiguous: bool
    clarification: Clarification | None


@strawberry.type
class ContextLayers:
    procedural: str
    project_context: str
    memories: str
    document_chunks: str
    recent_conversation: str


@strawberry.type
class TokenCounts:
    procedural: int
    project_context: int
    memories: int
    document_chunks: int
    recent_conversation: int


@strawberry.type
class ContextItem:
    memory: MemoryNode
    layer: ContextLayer
    score: float


@strawberry.type
class TrackedEntity:
    entity: EntityNode
    salience: float
    scope: str


@strawberry.type(name="Context")
class ContextNode:
    layers: ContextLayers
    token_counts: TokenCounts
    total_tokens: int
    token_budget: int
    text: str = strawberry.field(description="The layers as one text, most stable first.")
    items: list[ContextItem]
    tracked_entities: list[TrackedEntity]
    clarification: Clarification | None


@strawberry.type
class ReprofileReport:
    entities: int
    seconds: float


@strawberry.input
class RecordTurnInput:
    session_id: str
    user_id: str
    content: str
    role: Role = CoreRole.USER
    project_id: str | None = None
    speaker: str | None = None
    at: datetime | None = None


@strawberry.input
class IngestDocumentInput:
    source_path: str
    text: str
    project_id: str | None = None


@strawberry.input
class AssembleContextInput:
    session_id: str
    user_id: str
    project_id: str | None = None
    query: str | None = None
    token_budget: int | None = None
    mode: SearchMode = SearchMode.ANSWER
