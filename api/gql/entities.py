"""GraphQL entity graph: `entity`, `entities`, `relationships`, `entityLineage`, `createEntity`,
`addAlias`, `mergeEntities`, `unmergeEntities`."""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from datetime import datetime
from functools import partial
from typing import Annotated

import strawberry

from api.gql.context import Context
from api.gql.errors import ConflictError, ForbiddenError, InvalidInputError, NotFoundError
from api.gql.memories import Lineage, LineageLink
from api.gql.nodes import EntityNode, EntityType
from api.gql.pagination import PageInfo, check_first, decode_cursor, encode_cursor, paginate
from core.clock import to_datetime
from core.types import EntityMerge as CoreEntityMerge
from core.types import EntityRelation as CoreEntityRelation

Info = strawberry.Info[Context, None]


@strawberry.type
class Relationship:
    id: strawberry.ID
    source_id: strawberry.ID
    target_id: strawberry.ID
    relation: str
    since: datetime | None
    until: datetime | None
    source_memory_id: strawberry.ID | None

    @staticmethod
    def of(r: CoreEntityRelation) -> Relationship:
        return Relationship(
            id=strawberry.ID(r.id),
            source_id=strawberry.ID(r.source_id),
            target_id=strawberry.ID(r.target_id),
            relation=r.relation,
            since=to_datetime(r.since),
            until=to_datetime(r.until),
            source_memory_id=strawberry.ID(r.source_memory_id) if r.source_memory_id else None,
        )


@strawberry.type
class EntityMerge:
    id: strawberry.ID
    keep_id: strawberry.ID
    drop_ids: list[strawberry.ID]
    reason: str
    at: datetime | None
    by: str | None
    undone_at: datetime | None

    @staticmethod
    def of(m: CoreEntityMerge) -> EntityMerge:
        return EntityMerge(
            id=strawberry.ID(m.id),
            keep_id=strawberry.ID(m.keep_id),
            drop_ids=[strawberry.ID(i) for i in m.drop_ids],
            reason=m.reason,
            at=to_datetime(m.at),
            by=m.by,
            undone_at=to_datetime(m.undone_at),
        )


@strawberry.input
class EntityFilter:
    name: str | None = strawberry.field(default=None, description="Case-insensitive substring.")
    type: EntityType | None = None
    alias: str | None = strawberry.field(default=None, description="Exact alias (normalized).")


@strawberry.input
class CreateEntityInput:
    name: str
    type: EntityType
    aliases: list[str] | None = None


@strawberry.type
class EntityLineage:
    chains: list[Lineage]


@strawberry.type
class EntityEdge:
    cursor: str
    node: EntityNode


@strawberry.type
class EntityConnection:
    edges: list[EntityEdge]
    page_info: PageInfo
    count: strawberry.Private[Callable[[], Awaitable[int]]]

    @strawberry.field(
        description="How many entities match the filter, over every page (counted only when asked)."
    )
    async def total_count(self) -> int:
        return await self.count()


@strawberry.type
class RelationshipList:
    relationships: list[Relationship]


EntityResult = Annotated[
    EntityNode | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("EntityResult"),
]

EntitiesResult = Annotated[
    EntityConnection | InvalidInputError | ForbiddenError, strawberry.union("EntitiesResult")
]

RelationshipsResult = Annotated[
    RelationshipList | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("RelationshipsResult"),
]

MergeResult = Annotated[
    EntityMerge | NotFoundError | InvalidInputError | ConflictError | ForbiddenError,
    strawberry.union("MergeResult"),
]

EntityLineageResult = Annotated[
    EntityLineage | NotFoundError | InvalidInputError | ForbiddenError,
    strawberry.union("EntityLineageResult"),
]


@strawberry.type
class EntityQuery:
    @strawberry.field(description="One entity by id.")
    async def entity(self, info: Info, id: strawberry.ID) -> EntityResult:
        ctx = info.context
        return EntityNode.of(await ctx.brain.entities.get(ctx.tenant, str(id)))

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

        size = check_first(first, ctx.brain.settings.api.max_page_size)
        cursor = decode_cursor(after, 1)
        page = await ctx.brain.entities.page(
            ctx.tenant,
            first=size + 1,
            after=str(cursor[0]) if cursor else None,
            name=f.name,
            type=f.type,
            alias=f.alias,
        )
        pairs, page_info = paginate(page, size, lambda e: encode_cursor(e.id))
        edges = [EntityEdge(cursor=c, node=EntityNode.of(e)) for c, e in pairs]
        count = partial(ctx.brain.counts.entities, ctx.tenant, type=f.type, name=f.name,
                        alias=f.alias)  # fmt: skip
        return EntityConnection(edges=edges, page_info=page_info, count=count)

    @strawberry.field(description="An entity's relationships (both directions).")
    async def relationships(self, info: Info, entity_id: strawberry.ID) -> RelationshipsResult:
        ctx = info.context
        rels = await ctx.brain.entities.relationships(ctx.tenant, str(entity_id))
        return RelationshipList(relationships=[Relationship.of(r) for r in rels])

    @strawberry.field(description="Supersede chains of the facts about an entity.")
    async def entity_lineage(
        self, info: Info, entity_id: strawberry.ID, predicate: str | None = None
    ) -> EntityLineageResult:
        ctx = info.context
        chains = await ctx.brain.entities.lineage(ctx.tenant, str(entity_id), predicate)
        return EntityLineage(
            chains=[Lineage(links=[LineageLink.of(link) for link in c]) for c in chains]
        )


@strawberry.type
class EntityMutation:
    @strawberry.mutation(description="Create an entity with aliases.")
    async def create_entity(self, info: Info, input: CreateEntityInput) -> EntityResult:
        ctx = info.context
        entity = await ctx.brain.entities.create(
            ctx.tenant, input.name, input.type, input.aliases or []
        )
        return EntityNode.of(entity)

    @strawberry.mutation(description="Add an alias to an entity.")
    async def add_alias(self, info: Info, entity_id: strawberry.ID, alias: str) -> EntityResult:
        ctx = info.context
        return EntityNode.of(await ctx.brain.entities.add_alias(ctx.tenant, str(entity_id), alias))

    @strawberry.mutation(
        description="Record that entities are the same; undo with unmergeEntities."
    )
    async def merge_entities(
        self, info: Info, keep_id: strawberry.ID, drop_ids: list[strawberry.ID], reason: str
    ) -> MergeResult:
        ctx = info.context
        merge = await ctx.brain.entities.merge(
            ctx.tenant, str(keep_id), [str(d) for d in drop_ids], reason, by=ctx.principal_name
        )
        return EntityMerge.of(merge)

    @strawberry.mutation(description="Undo a recorded merge.")
    async def unmerge_entities(self, info: Info, merge_id: strawberry.ID) -> MergeResult:
        ctx = info.context
        return EntityMerge.of(await ctx.brain.entities.unmerge(ctx.tenant, str(merge_id)))
