"""Typed results of the client's calls: immutable pydantic models read from the API's
camelCase JSON (``created_at`` reads ``createdAt``). Fields the server adds later are
ignored, so a newer service does not break an older client."""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel


class _Model(BaseModel):
    model_config = ConfigDict(
        alias_generator=to_camel, populate_by_name=True, frozen=True, extra="ignore"
    )


class Memory(_Model):
    """One memory: a turn's episode, an extracted fact, a remembered or corrected one."""

    id: str
    type: str
    content: str
    importance: float
    pinned: bool
    created_at: datetime
    valid_from: datetime
    superseded_at: datetime | None = None
    current: bool
    project_id: str | None = None
    user_id: str | None = None
    session_id: str | None = None
    entity_ids: list[str] = Field(default_factory=list)
    superseded_by_id: str | None = None
    supersedes_id: str | None = None


class Entity(_Model):
    """A person, organisation, project ... the memories are about."""

    id: str
    name: str
    type: str
    aliases: list[str] = Field(default_factory=list)


class Clarification(_Model):
    """The service could not tell who a mention means; ask the user ``question``."""

    question: str
    mention: str
    descriptions: list[str] = Field(default_factory=list)


class Turn(_Model):
    """What ``record_turn`` stored: the turn's own memory and what was extracted from it."""

    episode: Memory
    extracted: list[Memory]
    entities: list[Entity]
    superseded_ids: list[str] = Field(default_factory=list)
    clarification: Clarification | None = None


class ContextLayers(_Model):
    procedural: str
    project_context: str
    memories: str
    document_chunks: str
    recent_conversation: str


class ContextItem(_Model):
    memory: Memory
    layer: str
    score: float


class Context(_Model):
    """The memory to put in the prompt: ``text`` is all layers in one string."""

    text: str
    total_tokens: int
    token_budget: int
    layers: ContextLayers
    items: list[ContextItem]
    clarification: Clarification | None = None


class SearchHit(_Model):
    memory: Memory
    score: float
    paths: list[str]


class LineageLink(_Model):
    """One version in a supersede chain."""

    memory: Memory
    reason: str | None = None
    replaced_at: datetime | None = None
    current: bool


class Lineage(_Model):
    """A memory's supersede chain, oldest first; ``current`` is the version in force."""

    links: list[LineageLink]
    current: Memory | None = None


class Document(_Model):
    """A document's version as stored: ``unchanged`` when its text was the stored one's."""

    document_id: str
    version: int
    unchanged: bool
    superseded: int  # chunks of the previous version it replaced
    chunk_count: int


class DocumentJob(_Model):
    """A large document being ingested in the background (``status`` QUEUED, RUNNING, DONE
    or FAILED; ``progress`` from 0 to 1); ``result`` once it is done."""

    id: str
    status: str
    progress: float
    chunks_done: int
    chunks_total: int
    error: str | None = None
    result: Document | None = None


class IdentityCandidate(_Model):
    """A known entity the question's entity may be: how it is described, and the score."""

    entity: Entity
    description: str
    score: float
    proposed: bool = False  # a re-profiling run found the two profiles converged


class IdentityQuestion(_Model):
    """A provisional entity that could not be told apart from known same-named ones."""

    entity: Entity
    description: str
    candidates: list[IdentityCandidate] = Field(default_factory=list)


class EntityMerge(_Model):
    """The answer "same": an undoable merge (``keep_id`` stays)."""

    id: str
    keep_id: str
    drop_ids: list[str]
    reason: str
