"""The facade's entity namespace (``brain.entities``): reads, what the resolver makes of a
text, curation (aliases, merges), identity questions and profile rebuilds, over the tenant
graph.

    peter = await brain.entities.create("acme", "Peter Novak", EntityType.PERSON)
    questions = await brain.entities.identity_questions("acme", first=10)

Entity writes invalidate the tenant's name cache so the next resolve sees them.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

from core.errors import Conflict, InvalidInput, NotFound
from core.ids import check_id
from core.resolution_types import IdentityDecision
from core.types import Entity, EntityMerge, EntityRelation, EntityType, LineageLink
from core.validation import check_text
from graph.identity_ops import IdentityQuestion
from graph.store import GraphStore
from resolution.describe import describe_all
from resolution.profiles import ReprofileReport
from resolution.resolver import Resolver
from resolution.types import Resolution


class EntityOperations:
    """Checks ids and text, calls the tenant graph, keeps the resolver's name cache fresh."""

    def __init__(self, graph: GraphStore, resolver: Resolver) -> None:
        self.graph = graph
        self.resolver = resolver

    async def get(self, tenant_id: str, entity_id: str) -> Entity:
        return await self.graph.tenant(tenant_id).get_entity(check_id(entity_id, "entityId"))

    async def get_many(self, tenant_id: str, ids: Sequence[str]) -> dict[str, Entity]:
        return await self.graph.tenant(tenant_id).get_entities([check_id(i) for i in ids])

    async def page(
        self,
        tenant_id: str,
        *,
        first: int,
        after: str | None = None,
        name: str | None = None,
        type: EntityType | None = None,
        alias: str | None = None,
    ) -> list[Entity]:
        tenant = self.graph.tenant(tenant_id)
        if alias is not None:
            found = [e for e in await tenant.find_by_alias(alias) if type is None or e.type == type]
            return [e for e in sorted(found, key=lambda e: e.id) if after is None or e.id > after][
                :first
            ]
        return await tenant.list_entities(limit=first, type=type, name=name, after=after)

    async def create(
        self, tenant_id: str, name: str, type: EntityType, aliases: Sequence[str] = ()
    ) -> Entity:
        if isinstance(name, str):
            check_text(name, "name")
        for alias in aliases:
            if isinstance(alias, str):
                check_text(alias, "aliases")
        entity = await self.graph.tenant(tenant_id).create_entity(name, type, aliases)
        self.resolver.names.invalidate(tenant_id)
        return entity

    async def lineage(
        self, tenant_id: str, entity_id: str, predicate: str | None = None
    ) -> list[list[LineageLink]]:
        """Supersede chains of the facts about an entity, oldest chain first."""
        tenant = self.graph.tenant(tenant_id)
        await tenant.get_entity(check_id(entity_id, "entityId"))
        return await tenant.entity_chains(entity_id, predicate)

    async def resolve(self, tenant_id: str, text: str, session_id: str | None = None) -> Resolution:
        """What the parser and resolver make of ``text`` (a read: nothing is created, and the
        session's entity tracker is consulted but not advanced)."""
        return await self.resolver.resolve(
            tenant_id, text, session_id=session_id, create_missing=False, update_session=False
        )

    async def reprofile(
        self,
        tenant_id: str,
        ids: Sequence[str] | None = None,
        progress: Callable[[int, int], None] | None = None,
    ) -> ReprofileReport:
        """Rebuild living profiles (summary, embedding, tags) of ``ids`` or the whole tenant."""
        checked = [check_id(i, "ids") for i in ids] if ids else None
        return await self.resolver.profiles.reprofile_entities(
            tenant_id, checked, progress=progress
        )

    async def relationships(self, tenant_id: str, entity_id: str) -> list[EntityRelation]:
        tenant = self.graph.tenant(tenant_id)
        await tenant.get_entity(check_id(entity_id, "entityId"))
        return await tenant.relations(entity_id)

    async def relate(
        self, tenant_id: str, source_id: str, target_id: str, relation: str
    ) -> EntityRelation:
        """A stated relation between two entities of the tenant (the demo's seed)."""
        return await self.graph.tenant(tenant_id).relate(source_id, target_id, relation)

    async def add_alias(self, tenant_id: str, entity_id: str, alias: str) -> Entity:
        if isinstance(alias, str):
            check_text(alias, "alias")
        entity = await self.graph.tenant(tenant_id).add_alias(
            check_id(entity_id, "entityId"), alias
        )
        self.resolver.names.invalidate(tenant_id)
        return entity

    async def merge(
        self,
        tenant_id: str,
        keep_id: str,
        drop_ids: Sequence[str],
        reason: str,
        by: str | None = None,
    ) -> EntityMerge:
        if not reason or not reason.strip():
            raise InvalidInput("a merge needs a reason", field="reason")
        keep = check_id(keep_id, "keepId")
        drops = [check_id(d, "dropIds") for d in drop_ids]
        merge = await self.graph.tenant(tenant_id).merge_entities(keep, drops, reason.strip(), by)
        self.resolver.names.invalidate(tenant_id)
        return merge

    async def unmerge(self, tenant_id: str, merge_id: str) -> EntityMerge:
        merge = await self.graph.tenant(tenant_id).unmerge(check_id(merge_id, "mergeId"))
        self.resolver.names.invalidate(tenant_id)
        return merge

    # -- identity curation ---------------------------------------------------------------------

    async def identity_questions(
        self, tenant_id: str, first: int, after: str | None = None
    ) -> list[DescribedQuestion]:
        """Open identity questions (provisional entities and the known entities they may be),
        each entity with its distinguishing facts ("Sarah, designer at Brightpath Media")."""
        tenant = self.graph.tenant(tenant_id)
        found = await tenant.identity_questions(first, check_id(after, "after") if after else None)
        entities = [e for q in found for e in (q.entity, *(c.entity for c in q.candidates))]
        parents = await tenant.get_entities(sorted({e.parent_id for e in entities if e.parent_id}))
        described = describe_all(entities, parents)
        return [DescribedQuestion(q, described) for q in found]

    async def identity_decisions(
        self, tenant_id: str, entity_id: str, limit: int = 50
    ) -> list[IdentityDecision]:
        """The write path's automatic identity decisions that chose, created or weighed an
        entity, newest first (``identityDecisions``, ``brain identity decisions``); NotFound
        for an unknown entity."""
        tenant = self.graph.tenant(tenant_id)
        await tenant.get_entity(check_id(entity_id, "entityId"))
        return await tenant.identity_decisions(entity_id, limit)

    async def confirm_same(
        self,
        tenant_id: str,
        entity_id: str,
        other_id: str,
        reason: str | None = None,
        by: str | None = None,
    ) -> EntityMerge:
        """The answer "same": a recorded, undoable merge (``unmergeEntities``). The known
        entity is kept: a provisional one is merged into the other, else ``entity_id`` is
        merged into ``other_id``. A pair confirmed distinct is a ``Conflict``."""
        first, other = check_id(entity_id, "entityId"), check_id(other_id, "otherId")
        if first == other:
            raise InvalidInput("an entity is the same as itself", field="otherId")
        tenant = self.graph.tenant(tenant_id)
        pair = await tenant.get_entities([first, other])
        for ident in (first, other):
            if ident not in pair:
                raise NotFound("entity", ident)
        if await tenant.distinct_pairs([first, other]):
            raise Conflict(f"entities {first} and {other} were confirmed distinct")
        keep, drop = (other, first)
        if pair[other].provisional and not pair[first].provisional:
            keep, drop = first, other
        merge = await self.merge(
            tenant_id, keep, [drop], (reason or "").strip() or "confirmed same entity", by
        )
        await tenant.settle_same(keep, drop)
        return merge

    async def confirm_distinct(
        self, tenant_id: str, entity_id: str, other_id: str, reason: str | None = None
    ) -> None:
        """The answer "different": recorded as ``DISTINCT_FROM``, never asked again."""
        await self.graph.tenant(tenant_id).confirm_distinct(
            check_id(entity_id, "entityId"), check_id(other_id, "otherId"), reason
        )


@dataclass(frozen=True)
class DescribedQuestion:
    """An identity question with a description per entity id (its own and its candidates')."""

    question: IdentityQuestion
    descriptions: dict[str, str]
