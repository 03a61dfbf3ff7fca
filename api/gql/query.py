"""Query resolvers: thin, they call the facade and map expected errors to typed results."""

from __future__ import annotations

from datetime import datetime

import strawberry

from api.context import Context
from api.gql.entities import EntityFilter, EntityNode, Relationship
from api.gql.errors import guarded
from api.gql.inputs import MemoryFilter, SearchInput
from api.gql.pagination import (
    EntityConnection,
    EntityEdge,
    MemoryConnection,
    MemoryEdge,
    check_first,
    decode_cursor,
    encode_cursor,
    paginate,
)
from api.gql.results import (
    CoreResult,
    EntitiesResult,
    EntityLineageResult,
    EntityResult,
    LineageResult,
    MemoriesResult,
    MemoryList,
    MemoryResult,
    RelationshipList,
    RelationshipsResult,
    SearchResult,
    VizGraphResult,
)
from api.gql.types import (
    EngineHealth,
    EntityLineage,
    Health,
    Lineage,
    LineageLink,
    MemoryNode,
    MemoryType,
    PathCount,
    SearchHit,
    SearchMetadata,
    SearchResults,
)
from api.gql.viz import VizGraph
from api.viz import DEFAULT_LIMIT as DEFAULT_VIZ_LIMIT
from api.viz import VizQuery, viz_graph
from core.clock import to_epoch
from core.retrieval_types import SearchMode as CoreSearchMode
from core.retrieval_types import SearchQuery

VERSION = "0.1.0"
Info = strawberry.Info[Context, None]


@strawberry.type
class Query:
    @strawberry.field(description="Engine status, counts of the caller's tenant, index lag.")
    async def health(self, info: Info) -> Health:
        ctx = info.context
        h = await ctx.brain.health(ctx.principal.tenant_id if ctx.principal else None)
        return Health(
            ok=h.ok,
            version=VERSION,
            engines=[
                EngineHealth(name=e.name, ok=e.ok, latency_ms=e.latency_ms, detail=e.detail)
                for e in h.engines
            ],
            memories=h.memories,
            entities=h.entities,
            index_lag=h.unindexed,
        )

    @strawberry.field(description="One memory by id.")
    async def memory(self, info: Info, id: strawberry.ID) -> MemoryResult:
        ctx = info.context

        async def run() -> MemoryNode:
            return MemoryNode.of(await ctx.brain.memory(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]

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

        async def run() -> MemoryConnection:
            size = check_first(first, ctx.brain.settings.api.max_page_size)
            cursor = decode_cursor(after, 2)
            page = await ctx.brain.list_memories(
                ctx.tenant,
                first=size + 1,
                after=(float(cursor[0]), str(cursor[1])) if cursor else None,  # type: ignore[arg-type]
                types=f.types,
                project_id=f.project_id,
                session_id=f.session_id,
                user_id=f.user_id,
                include_superseded=f.include_superseded,
                include_forgotten=f.include_forgotten,
                since=to_epoch(f.since),
                until=to_epoch(f.until),
            )
            pairs, info = paginate(page, size, lambda m: encode_cursor(m.created_at, m.id))
            edges = [MemoryEdge(cursor=c, node=MemoryNode.of(m)) for c, m in pairs]
            return MemoryConnection(edges=edges, page_info=info)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="The supersede chain through a memory, oldest first.")
    async def lineage(self, info: Info, memory_id: strawberry.ID) -> LineageResult:
        ctx = info.context

        async def run() -> Lineage:
            links = await ctx.brain.lineage(ctx.tenant, str(memory_id))
            return Lineage(links=[LineageLink.of(link) for link in links])

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="Pinned core memory, always injected into context.")
    async def core(self, info: Info) -> CoreResult:
        ctx = info.context

        async def run() -> MemoryList:
            return MemoryList(memories=[MemoryNode.of(m) for m in await ctx.brain.core(ctx.tenant)])

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="Find memories.")
    async def search(self, info: Info, input: SearchInput) -> SearchResult:
        ctx = info.context

        async def run() -> SearchResults:
            weights = (
                {k: v for k, v in vars(input.weights).items() if v is not None}
                if input.weights
                else None
            )
            query = SearchQuery(
                query=input.query,
                mode=CoreSearchMode(input.mode.value),
                top_k=input.top_k,
                types=tuple(input.types) if input.types else None,
                project_id=input.project_id,
                since=to_epoch(input.since),
                until=to_epoch(input.until),
                as_of=to_epoch(input.as_of),
                weights=weights,
                session_id=input.session_id,
                user_id=input.user_id,
            )
            result = await ctx.brain.search(ctx.tenant, query)
            return SearchResults(
                hits=[SearchHit.of(h) for h in result.hits],
                metadata=SearchMetadata(
                    candidates_per_path=[
                        PathCount(path=p, candidates=n)
                        for p, n in result.metadata.candidates_per_path.items()
                    ],
                    post_filter_count=result.metadata.post_filter_count,
                    latency_ms=result.metadata.latency_ms,
                ),
            )

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="One entity by id.")
    async def entity(self, info: Info, id: strawberry.ID) -> EntityResult:
        ctx = info.context

        async def run() -> EntityNode:
            return EntityNode.of(await ctx.brain.entity(ctx.tenant, str(id)))

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="Entities (merged-away ones hidden), by id order.")
    async def entities(
        self,
        info: Info,
        filter: EntityFilter | None = None,
        first: int = 20,
        after: str | None = None,
    ) -> EntitiesResult:
        ctx = info.context
        f = filter or EntityFilter()

        async def run() -> EntityConnection:
            size = check_first(first, ctx.brain.settings.api.max_page_size)
            cursor = decode_cursor(after, 1)
            page = await ctx.brain.list_entities(
                ctx.tenant,
                first=size + 1,
                after=str(cursor[0]) if cursor else None,
                name=f.name,
                type=f.type,
                alias=f.alias,
            )
            pairs, info = paginate(page, size, lambda e: encode_cursor(e.id))
            edges = [EntityEdge(cursor=c, node=EntityNode.of(e)) for c, e in pairs]
            return EntityConnection(edges=edges, page_info=info)

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="An entity's relationships (both directions).")
    async def relationships(self, info: Info, entity_id: strawberry.ID) -> RelationshipsResult:
        ctx = info.context

        async def run() -> RelationshipList:
            rels = await ctx.brain.relationships(ctx.tenant, str(entity_id))
            return RelationshipList(relationships=[Relationship.of(r) for r in rels])

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(description="Supersede chains of the facts about an entity.")
    async def entity_lineage(
        self, info: Info, entity_id: strawberry.ID, predicate: str | None = None
    ) -> EntityLineageResult:
        ctx = info.context

        async def run() -> EntityLineage:
            chains = await ctx.brain.entity_lineage(ctx.tenant, str(entity_id), predicate)
            return EntityLineage(
                chains=[Lineage(links=[LineageLink.of(link) for link in c]) for c in chains]
            )

        return await guarded(run)  # type: ignore[no-any-return]

    @strawberry.field(
        description="The explorer's graph: memories (3D layout, validity intervals), their "
        "links and entities. Current now by default; `asOf` gives the state at that instant; "
        "`history` every version ever stored (to animate); at most `limit` memories "
        "(a stable sample when more match); `about: false` leaves out the memory-to-entity links."
    )
    async def viz_graph(
        self,
        info: Info,
        project_id: str | None = None,
        since: datetime | None = None,
        until: datetime | None = None,
        types: list[MemoryType] | None = None,
        as_of: datetime | None = None,
        history: bool = False,
        limit: int = DEFAULT_VIZ_LIMIT,
        about: bool = True,  # ABOUT links (memory -> entity); nodes' entityIds carry them too
    ) -> VizGraphResult:
        ctx = info.context

        async def run() -> VizGraph:
            query = VizQuery(
                project_id=project_id,
                since=to_epoch(since),
                until=to_epoch(until),
                as_of=to_epoch(as_of),
                history=history,
                types=types,
                limit=limit,
                about=about,
            )
            return VizGraph.of(await viz_graph(ctx.brain.graph, ctx.tenant, query))

        return await guarded(run)  # type: ignore[no-any-return]
