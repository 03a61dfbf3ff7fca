"""GraphQL types of the public contract (../shared/API.md) and their construction from domain
objects. Expected failures are typed results implementing the ``Error`` interface."""

from __future__ import annotations

from datetime import datetime
from enum import Enum

import strawberry

from api.gql.entities import EntityNode
from core.clock import NEVER, now, to_datetime
from core.retrieval_types import SIGNALS
from core.types import DecayClass as CoreDecayClass
from core.types import DiskCheck as CoreDiskCheck
from core.types import EraseReport as CoreEraseReport
from core.types import Hit as CoreHit
from core.types import LineageLink as CoreLineageLink
from core.types import Memory as CoreMemory
from core.types import MemoryType as CoreMemoryType
from retrieval.scoring import recency_signal

# The domain enums are the GraphQL enums (member names are the GraphQL values).
strawberry.enum(CoreMemoryType, name="MemoryType")
strawberry.enum(CoreDecayClass, name="DecayClass")
MemoryType = CoreMemoryType
DecayClass = CoreDecayClass


@strawberry.enum
class SearchMode(Enum):
    ANSWER = "answer"
    MANAGER = "manager"


@strawberry.enum
class RetrievalPath(Enum):
    ENTITY = "ENTITY"
    SEMANTIC = "SEMANTIC"
    KEYWORD = "KEYWORD"
    CONVERSATION = "CONVERSATION"
    CORE = "CORE"


# -- memories ----------------------------------------------------------------------------------


@strawberry.type(name="Memory")
class MemoryNode:
    id: strawberry.ID
    type: MemoryType
    content: str
    importance: float
    access_count: int
    decay_class: DecayClass
    pinned: bool
    created_at: datetime
    valid_from: datetime
    last_accessed_at: datetime | None
    expires_at: datetime | None
    superseded_at: datetime | None
    project_id: str | None
    user_id: str | None
    session_id: str | None
    source: str | None
    entity_ids: list[strawberry.ID]
    current: bool = strawberry.field(description="Not superseded by a later correction.")
    decay_factor: float = strawberry.field(description="Ranking decay now (1 = no decay).")
    superseded_by_id: strawberry.ID | None
    supersedes_id: strawberry.ID | None
    merged_into_id: strawberry.ID | None = strawberry.field(
        description="Hidden as a duplicate of this memory (undo with unmergeMemory)."
    )
    summarized_by_id: strawberry.ID | None = strawberry.field(
        description="The pattern memory that summarizes this episode (which stays current)."
    )
    pruned_at: datetime | None = strawberry.field(
        description="Soft-pruned by the lifecycle: a restatement of carriedById."
    )
    carried_by_id: strawberry.ID | None = strawberry.field(
        description="A pruned restatement: the live memory that says the same."
    )
    corrected_at: datetime | None = strawberry.field(
        description="A turn (episodic) with a statement a later memory superseded: when that "
        "first happened. The turn stays current, as it was said."
    )
    trigger: str | None = strawberry.field(
        default=None, description="A procedure: when, or what for, it is done."
    )
    steps: list[str] = strawberry.field(
        default_factory=list, description="A procedure: its steps, in order."
    )

    @staticmethod
    def of(m: CoreMemory) -> MemoryNode:
        return MemoryNode(
            id=strawberry.ID(m.id),
            type=m.type,
            content=m.content,
            importance=m.importance,
            access_count=m.access_count,
            decay_class=m.decay_class,
            pinned=m.pinned,
            created_at=to_datetime(m.created_at) or datetime.min,
            valid_from=to_datetime(m.valid_from) or datetime.min,
            last_accessed_at=to_datetime(m.last_accessed_at),
            expires_at=to_datetime(m.expires_at) if m.expires_at < NEVER else None,
            superseded_at=to_datetime(m.superseded_at),
            project_id=m.project_id,
            user_id=m.user_id,
            session_id=m.session_id,
            source=m.source,
            entity_ids=[strawberry.ID(e) for e in m.entity_ids],
            current=m.is_current,
            decay_factor=recency_signal(m, now()),
            superseded_by_id=strawberry.ID(m.superseded_by) if m.superseded_by else None,
            supersedes_id=strawberry.ID(m.supersedes) if m.supersedes else None,
            merged_into_id=strawberry.ID(m.merged_into) if m.merged_into else None,
            summarized_by_id=strawberry.ID(m.summarized_by) if m.summarized_by else None,
            pruned_at=to_datetime(m.pruned_at),
            carried_by_id=strawberry.ID(m.carried_by) if m.carried_by else None,
            corrected_at=to_datetime(m.corrected_at),
            trigger=m.trigger,
            steps=list(m.steps),
        )

    @strawberry.field(description="The entities this memory is about.")
    async def entities(self, info: strawberry.Info) -> list[EntityNode]:
        loaded = await info.context.entity_loader.load_many([str(e) for e in self.entity_ids])
        return [EntityNode.of(e) for e in loaded if e is not None]

    @strawberry.field(description="The memory that replaced this one, if any.")
    async def superseded_by(self, info: strawberry.Info) -> MemoryNode | None:
        return await _load(info, self.superseded_by_id)

    @strawberry.field(description="The memory this one replaced, if any.")
    async def supersedes(self, info: strawberry.Info) -> MemoryNode | None:
        return await _load(info, self.supersedes_id)

    @strawberry.field(
        description="A pattern: the episodes it summarizes, oldest first (they stay current)."
    )
    async def sources(self, info: strawberry.Info) -> list[MemoryNode]:
        if self.type is not MemoryType.PATTERN:
            return []
        ids = await info.context.brain.pattern_sources(info.context.tenant, str(self.id))
        loaded = await info.context.memory_loader.load_many(ids)
        return [MemoryNode.of(m) for m in loaded if m is not None]


async def _load(info: strawberry.Info, memory_id: str | None) -> MemoryNode | None:
    if memory_id is None:
        return None
    memory = await info.context.memory_loader.load(str(memory_id))
    return MemoryNode.of(memory) if memory is not None else None


@strawberry.type
class LineageLink:
    memory: MemoryNode
    reason: str | None
    replaced_at: datetime | None
    current: bool

    @staticmethod
    def of(link: CoreLineageLink) -> LineageLink:
        return LineageLink(
            memory=MemoryNode.of(link.memory),
            reason=link.reason,
            replaced_at=to_datetime(link.replaced_at),
            current=link.current,
        )


@strawberry.type(description="A supersede chain, oldest first; the current one is marked.")
class Lineage:
    links: list[LineageLink]

    @strawberry.field
    def current(self) -> MemoryNode | None:
        return next((link.memory for link in self.links if link.current), None)


@strawberry.type(
    description="What an erase compacted in the embedded engines' files and then found there."
)
class DiskCheck:
    scanned: bool = strawberry.field(
        description="The engines' files were read (false on server engines: see the README)."
    )
    files: int = strawberry.field(description="Files read.")
    vectors_compacted: bool = strawberry.field(
        description="The vector shard was rewritten from its live points."
    )
    graph_compacted: bool = strawberry.field(
        description="The graph engine's record pages were compacted."
    )
    traces: list[str] = strawberry.field(
        description="Each file still holding an erased id or string, with the value found."
    )
    pending: str | None = strawberry.field(
        description="What still keeps erased bytes, and when they go (null: nothing)."
    )
    clean: bool = strawberry.field(description="Scanned, and no file held an erased id or string.")

    @staticmethod
    def of(d: CoreDiskCheck) -> DiskCheck:
        return DiskCheck(
            scanned=d.scanned,
            files=d.files,
            vectors_compacted=d.vectors_compacted,
            graph_compacted=d.graph_compacted,
            traces=list(d.traces),
            pending=d.pending,
            clean=d.clean,
        )


@strawberry.type(
    description="What an erase removed from both engines and what it cleaned up around it."
)
class EraseReport:
    memory_ids: list[strawberry.ID] = strawberry.field(
        description="Every erased memory: the subject's own and those derived from them."
    )
    entity_ids: list[strawberry.ID] = strawberry.field(
        description="Erased entities: the one named and any merged into it."
    )
    vector_points: int = strawberry.field(description="Vector points deleted.")
    derived_memories: int = strawberry.field(
        description="Erased extractions of erased turns, earlier versions, merged duplicates."
    )
    patterns: int = strawberry.field(description="Erased patterns that summarized an episode.")
    restored_memories: int = strawberry.field(
        description="Episodes of erased patterns made current again."
    )
    reprofiled_entities: int = strawberry.field(
        description="Surviving entities whose profile was rebuilt without the erased text."
    )
    conflicts: int = strawberry.field(description="Recorded contradictions deleted.")
    jobs: int = strawberry.field(description="Queued jobs naming erased ids deleted.")
    sessions: int = strawberry.field(description="Sessions whose working memory was cleaned.")
    documents: int = strawberry.field(description="Document records cleaned or deleted.")
    feedback: int = strawberry.field(description="Feedback records cleaned or deleted.")
    relations: int = strawberry.field(description="Entity relationships learned from erased text.")
    verified: bool = strawberry.field(
        description="Checked afterwards: neither engine holds an erased memory."
    )
    disk: DiskCheck = strawberry.field(
        description="The engines' files compacted, then read for the erased ids and strings."
    )

    @staticmethod
    def of(r: CoreEraseReport) -> EraseReport:
        return EraseReport(
            memory_ids=[strawberry.ID(i) for i in r.memory_ids],
            entity_ids=[strawberry.ID(i) for i in r.entity_ids],
            vector_points=r.vector_points,
            derived_memories=r.derived_memories,
            patterns=r.patterns,
            restored_memories=r.restored_memories,
            reprofiled_entities=r.reprofiled_entities,
            conflicts=r.conflicts,
            jobs=r.jobs,
            sessions=r.sessions,
            documents=r.documents,
            feedback=r.feedback,
            relations=r.relations,
            verified=r.verified,
            disk=DiskCheck.of(r.disk),
        )


# -- search ------------------------------------------------------------------------------------


@strawberry.input(
    description="Per-request weight overrides; unset signals keep the mode's profile."
)
class WeightsInput:
    similarity: float | None = None
    keyword: float | None = None
    recency: float | None = None
    importance: float | None = None
    access_frequency: float | None = None
    entity_match: float | None = None
    project_match: float | None = None
    task_bonus: float | None = None


@strawberry.type
class Signals:
    similarity: float | None = None
    keyword: float | None = None
    recency: float | None = None
    importance: float | None = None
    access_frequency: float | None = None
    entity_match: float | None = None
    project_match: float | None = None
    task_bonus: float | None = None


@strawberry.type
class SearchHit:
    memory: MemoryNode
    score: float
    paths: list[RetrievalPath]
    signals: Signals

    @staticmethod
    def of(hit: CoreHit) -> SearchHit:
        known = {k: v for k, v in hit.signals.items() if k in SIGNALS}
        return SearchHit(
            memory=MemoryNode.of(hit.memory),
            score=hit.score,
            paths=[RetrievalPath(p) for p in hit.paths],
            signals=Signals(**known),
        )


@strawberry.type
class PathCount:
    path: str = strawberry.field(description="A retrieval path, or NEIGHBOR (adjacent turns).")
    candidates: int


@strawberry.type
class SearchMetadata:
    candidates_per_path: list[PathCount]
    post_filter_count: int
    latency_ms: float


@strawberry.type
class SearchResults:
    hits: list[SearchHit]
    metadata: SearchMetadata


# -- health ------------------------------------------------------------------------------------


@strawberry.type
class EngineHealth:
    name: str
    ok: bool
    latency_ms: float | None
    detail: str | None


@strawberry.type
class Health:
    ok: bool
    version: str
    engines: list[EngineHealth]
    memories: int | None = strawberry.field(description="Memories of the caller's tenant.")
    entities: int | None
    index_lag: int | None = strawberry.field(description="Memories not yet in the vector index.")


@strawberry.type
class EntityLineage:
    chains: list[Lineage]
