"""GraphQL types of the entity graph."""

from __future__ import annotations

from datetime import datetime

import strawberry

from core.clock import to_datetime
from core.types import Entity as CoreEntity
from core.types import EntityMerge as CoreEntityMerge
from core.types import EntityRelation as CoreEntityRelation
from core.types import EntityType as CoreEntityType

strawberry.enum(CoreEntityType, name="EntityType")
EntityType = CoreEntityType


@strawberry.type(name="Entity")
class EntityNode:
    id: strawberry.ID
    name: str
    type: EntityType
    aliases: list[str]
    parent_id: strawberry.ID | None
    profile_summary: str | None
    context_tags: list[str]
    first_seen: datetime | None
    last_seen: datetime | None
    merged_into_id: strawberry.ID | None
    provisional: bool = strawberry.field(
        description="Born from a mention that could not be told apart from known same-named "
        "entities: an open identity question (see identityQuestions)."
    )

    @staticmethod
    def of(e: CoreEntity) -> EntityNode:
        return EntityNode(
            id=strawberry.ID(e.id),
            name=e.name,
            type=e.type,
            aliases=list(e.aliases),
            parent_id=strawberry.ID(e.parent_id) if e.parent_id else None,
            profile_summary=e.profile_summary,
            context_tags=list(e.context_tags),
            first_seen=to_datetime(e.first_seen),
            last_seen=to_datetime(e.last_seen),
            merged_into_id=strawberry.ID(e.merged_into) if e.merged_into else None,
            provisional=e.provisional,
        )


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
