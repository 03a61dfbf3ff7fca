"""Domain types of the write side: turns, sessions, tasks, documents, conflicts and jobs.

Plain typed data like ``core/types.py``; ``graph/ingest_ops.py`` translates records into them.

Tasks are memories (``type=task``) so retrieval finds them like any other memory; their
lifecycle lives on the same graph node as ``task_status`` / ``task_priority`` / ``task_key``.
Document chunks are memories of ``type=document``; the ``Document`` node records the source
path, the content hash of the current version and the ids of its current chunks.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field

from core.types import Entity, Memory


def user_subject(user_id: str) -> str:
    """The subject of a user's stated preferences (``user:<id>``)."""
    return f"user:{user_id}"


class Role(StrEnum):
    USER = "user"
    ASSISTANT = "assistant"
    TOOL = "tool"


class TaskStatus(StrEnum):
    CANDIDATE = "candidate"  # extracted, awaiting the user's confirmation
    CONFIRMED = "confirmed"
    DISMISSED = "dismissed"
    EXPIRED = "expired"  # a candidate nobody confirmed within the expiry window


class TaskPriority(StrEnum):
    MEDIUM = "medium"
    HIGH = "high"


class JobStatus(StrEnum):
    PENDING = "pending"
    DONE = "done"
    FAILED = "failed"


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TurnInput(BaseModel):
    """One conversation turn as an application sends it."""

    model_config = ConfigDict(extra="forbid")

    session_id: str
    content: str
    role: Role = Role.USER
    user_id: str | None = None
    project_id: str | None = None
    speaker: str | None = None  # display name of who spoke, when not just "user"
    at: float | None = None  # epoch seconds; default now


class Turn(_Frozen):
    """A turn held in a session's working memory (its episodic record is ``memory_id``)."""

    memory_id: str
    session_id: str
    index: int  # 1-based position in the session
    role: Role
    content: str
    at: float
    speaker: str | None = None


class Session(_Frozen):
    """A conversation's working memory: the first turn plus a sliding window of recent turns."""

    id: str
    user_id: str | None = None
    project_id: str | None = None
    started_at: float
    last_turn_at: float
    expires_at: float  # idle expiry: last_turn_at + idle timeout, capped by the session TTL
    closed_at: float | None = None
    flushed_at: float | None = None  # working memory promoted/expired by the lifecycle
    turn_count: int = 0
    window: tuple[str, ...] = ()  # episodic memory ids, oldest first; window[0] is turn 1

    def is_open(self, at: float) -> bool:
        return self.closed_at is None and self.expires_at > at


class Task(_Frozen):
    """A task candidate extracted from conversation (or confirmed by the user)."""

    id: str  # the task memory's id
    content: str
    status: TaskStatus
    priority: TaskPriority
    confidence: float
    mentions: int = 1  # how many times it was said (deduplicated by normalized text)
    created_at: float
    updated_at: float
    session_id: str | None = None
    user_id: str | None = None
    project_id: str | None = None
    entity_ids: tuple[str, ...] = ()


class FactConflict(_Frozen):
    """A contradiction that was not overwritten: both memories stay, a human reviews it."""

    id: str
    memory_id: str  # the new statement
    existing_id: str  # the statement it contradicts
    subject: str
    predicate: str
    reason: str
    at: float
    resolved_at: float | None = None


class Document(_Frozen):
    id: str
    source_path: str
    content_hash: str
    version: int
    created_at: float
    updated_at: float
    project_id: str | None = None
    chunk_ids: tuple[str, ...] = ()


class DocumentResult(_Frozen):
    document: Document
    chunks: tuple[Memory, ...] = ()  # the chunks written by this call (empty when unchanged)
    unchanged: bool = False
    superseded: int = 0  # previous-version chunks superseded by this call
    entities: tuple[Entity, ...] = ()


class DocumentJobStatus(StrEnum):
    QUEUED = "queued"
    RUNNING = "running"
    DONE = "done"
    FAILED = "failed"


class DocumentJob(_Frozen):
    """A large document ingested in the background (``ingest/jobs/document_jobs.py``)."""

    id: str
    source_path: str
    status: DocumentJobStatus = DocumentJobStatus.QUEUED
    progress: float = 0.0  # 0..1: chunks linked, embedded and written, then the version published
    chunks_done: int = 0
    chunks_total: int = 0
    created_at: float
    updated_at: float
    error: str | None = None
    # The outcome, once done: the document's id and version, and what the version did.
    document_id: str | None = None
    version: int | None = None
    unchanged: bool = False
    superseded: int = 0


class Job(_Frozen):
    """A unit of deferred work, persisted before it is acknowledged."""

    id: str
    kind: str
    payload: dict[str, object] = Field(default_factory=dict)
    status: JobStatus = JobStatus.PENDING
    attempts: int = 0
    created_at: float
    updated_at: float
    error: str | None = None
