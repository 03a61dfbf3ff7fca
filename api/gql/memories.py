"""GraphQL memories: `memory`, `memories`, `lineage`, `remember`, `supersede`, `forget` and
`erase` (types, inputs, result unions and resolvers together)."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Annotated, Any

import strawberry

from api.gql.context import Context
from api.gql.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from api.gql.nodes import DecayClass, MemoryNode, MemoryType
from api.gql.pagination import PageInfo, check_first, decode_cursor, encode_cursor, paginate
from core.clock import to_datetime, to_epoch
from core.types import DiskCheck as CoreDiskCheck
from core.types import EraseReport as CoreEraseReport
from core.types import LineageLink as CoreLineageLink
from core.types import MemoryType as CoreMemoryType
from core.types import NewMemory

Info = strawberry.Info[Context, None]


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
        description="The engines' files were read (false on server engines: docs/OPERATIONS.md)."
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


@strawberry.type
class MemoryEdge:
    cursor: str
    node: MemoryNode


@strawberry.type
class MemoryConnection:
    edges: list[MemoryEdge]
    page_info: PageInfo
    count: strawberry.Private[Callable[[], Awaitable[int]]]

    @strawberry.field(
        description="How many memories match the filter, over every page (counted only when asked)."
    )
    async def total_count(self) -> int:
        return await self.count()


@strawberry.input
class RememberInput:
    content: str
    type: MemoryType = CoreMemoryType.FACT
    importance: float | None = None
    decay_class: DecayClass | None = None
    entities: list[strawberry.ID] | None = None
    project_id: str | None = None
    session_id: str | None = None
    user_id: str | None = None
    pinned: bool = False
    valid_from: datetime | None = None


@strawberry.input
class SupersedeInput:
    content: str
    reason: str | None = None


@strawberry.input
class EraseInput:
    memory_ids: list[strawberry.ID] | None = None
    entity_id: strawberry.ID | None = None
    user_id: str | None = None


@strawberry.input
class MemoryFilter:
    types: list[MemoryType] | None = None
    project_id: str | None = None
    session_id: str | None = None
    user_id: str | None = None
    since: datetime | None = None
    until: datetime | None = None
    include_superseded: bool = False
    include_forgotten: bool = False


MemoryResult = Annotated[
    MemoryNode | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("MemoryResult"),
]

RememberResult = Annotated[
    MemoryNode | InvalidInputError | ForbiddenError, strawberry.union("RememberResult")
]

SupersedeResult = Annotated[
    MemoryNode | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("SupersedeResult"),
]

LineageResult = Annotated[
    Lineage | NotFoundError | InvalidInputError | ForbiddenError, strawberry.union("LineageResult")
]

EraseResult = Annotated[
    EraseReport | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("EraseResult"),
]

MemoriesResult = Annotated[
    MemoryConnection | InvalidInputError | ForbiddenError, strawberry.union("MemoriesResult")
]


@strawberry.type
class MemoryQuery:
    @strawberry.field(description="One memory by id.")
    async def memory(self, info: Info, id: strawberry.ID) -> MemoryResult:
        ctx = info.context
        return MemoryNode.of(await ctx.brain.memories.get(ctx.tenant, str(id)))

    @strawberry.field(description="Memories, newest first (current and live unless asked).")
    async def memories(
        self,
        info: Info,
        filter: MemoryFilter | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> MemoriesResult:
        ctx = info.context
        f = filter or MemoryFilter()

        size = check_first(first, ctx.brain.settings.api.max_page_size)
        cursor = decode_cursor(after, 2)
        filters: dict[str, Any] = {  # the page's and the count's
            "types": f.types,
            "project_id": f.project_id,
            "session_id": f.session_id,
            "user_id": f.user_id,
            "include_superseded": f.include_superseded,
            "include_forgotten": f.include_forgotten,
            "since": to_epoch(f.since),
            "until": to_epoch(f.until),
        }
        page = await ctx.brain.memories.page(
            ctx.tenant,
            first=size + 1,
            after=(float(cursor[0]), str(cursor[1])) if cursor else None,  # type: ignore[arg-type]
            **filters,
        )
        pairs, page_info = paginate(page, size, lambda m: encode_cursor(m.created_at, m.id))
        edges = [MemoryEdge(cursor=c, node=MemoryNode.of(m)) for c, m in pairs]
        count = partial(ctx.brain.counts.memories, ctx.tenant, **filters)
        return MemoryConnection(edges=edges, page_info=page_info, count=count)

    @strawberry.field(description="The supersede chain through a memory, oldest first.")
    async def lineage(self, info: Info, memory_id: strawberry.ID) -> LineageResult:
        ctx = info.context
        links = await ctx.brain.memories.lineage(ctx.tenant, str(memory_id))
        return Lineage(links=[LineageLink.of(link) for link in links])


@strawberry.type
class MemoryMutation:
    @strawberry.mutation(description="Store one memory explicitly; searchable when this returns.")
    async def remember(self, info: Info, input: RememberInput) -> RememberResult:
        ctx = info.context
        item = NewMemory(
            content=input.content,
            type=input.type,
            importance=0.5 if input.importance is None else input.importance,
            decay_class=input.decay_class,
            entity_ids=[str(e) for e in input.entities or []],
            project_id=input.project_id,
            session_id=input.session_id,
            user_id=input.user_id,
            pinned=input.pinned,
            valid_from=to_epoch(input.valid_from),
            source="api",
        )
        return MemoryNode.of(await ctx.brain.memories.remember(ctx.tenant, item))

    @strawberry.mutation(description="Replace a memory with a correction; the chain keeps both.")
    async def supersede(
        self, info: Info, id: strawberry.ID, input: SupersedeInput
    ) -> SupersedeResult:
        ctx = info.context
        memory = await ctx.brain.memories.supersede(
            ctx.tenant, str(id), input.content, input.reason
        )
        return MemoryNode.of(memory)

    @strawberry.mutation(description="Soft delete: the memory leaves every read, stays in lineage.")
    async def forget(self, info: Info, id: strawberry.ID) -> MemoryResult:
        ctx = info.context
        return MemoryNode.of(await ctx.brain.memories.forget(ctx.tenant, str(id)))

    @strawberry.mutation(
        description="GDPR hard delete of memories, an entity or a user from both engines, "
        "with everything derived from them (extractions, patterns, duplicates, profiles)."
    )
    async def erase(self, info: Info, input: EraseInput) -> EraseResult:
        ctx = info.context
        report = await ctx.brain.memories.erase(
            ctx.tenant,
            memory_ids=[str(i) for i in input.memory_ids or []],
            entity_id=str(input.entity_id) if input.entity_id else None,
            user_id=input.user_id,
        )
        return EraseReport.of(report)
