"""The node types every feature returns: memories, entities and a clarification question, built
from domain objects (``of``); the domain enums registered as GraphQL enums."""

from __future__ import annotations

from datetime import datetime

import strawberry

from core.clock import NEVER, now, to_datetime
from core.resolution_types import Clarification as CoreClarification
from core.types import DecayClass as CoreDecayClass
from core.types import Entity as CoreEntity
from core.types import EntityType as CoreEntityType
from core.types import Memory as CoreMemory
from core.types import MemoryType as CoreMemoryType
from core.types import learned_from
from retrieval.scoring import recency_signal

# The domain enums are the GraphQL enums (member names are the GraphQL values).
strawberry.enum(CoreMemoryType, name="MemoryType")
strawberry.enum(CoreDecayClass, name="DecayClass")
strawberry.enum(CoreEntityType, name="EntityType")
MemoryType = CoreMemoryType
DecayClass = CoreDecayClass
EntityType = CoreEntityType


@strawberry.type(name="Entity")
class EntityNode:
    id: strawberry.ID
    name: str
    type: EntityType
    aliases: list[str]
    parent_id: strawberry.ID | None
    profile_summary: str | None = strawberry.field(
        description="What the tenant's current memories say about the entity, each statement "
        'once and starting with the day it was said: "[2023-01-10] Peter is one of our '
        'writers. [2023-03-02] He edits the travel guides." A corrected value is left out.'
    )
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
    slot: str | None = strawberry.field(
        default=None,
        description="A statement memory: what it gives a value of, its words with the values "
        'masked ("deploy target <thing>"). A later value of the slot supersedes it.',
    )
    earlier_until: datetime | None = strawberry.field(
        default=None,
        description="In a search result: this memory holds an earlier value of a slot whose "
        "later value is in the same result (listed before it), and was so until then.",
    )
    earlier_part: list[int] | None = strawberry.field(
        default=None,
        description="With earlierUntil, when the memory says other things that still hold: "
        "the [start, end) character span of its content that says the earlier value.",
    )
    now_value: str | None = strawberry.field(
        default=None,
        description="In a search result: this memory holds a slot's current value and its words "
        "also name a value the slot held before; the current value, as said.",
    )
    names_earlier: list[str] = strawberry.field(
        default_factory=list,
        description='With nowValue: the earlier value its words name ("ironclad was always '
        'packed, cancelled it. joined PeakForm Studio instead").',
    )
    corrected_chain_ids: list[strawberry.ID] = strawberry.field(
        default_factory=list,
        description="A corrected turn: the supersede chains (by their first memory's id) that "
        "now say what it said; the current version of each is the current value.",
    )
    learned: bool = strawberry.field(
        default=False,
        description="Core memory learned from conversation: a user's statement of the "
        "business's identity, their own name or role, an active project or a standing rule, "
        "pinned when said (see learnedFrom). unpinCore removes it for good.",
    )
    learned_from_id: strawberry.ID | None = strawberry.field(
        default=None, description="A learned core item: the turn it was learned from."
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
            slot=m.slot,
            earlier_until=to_datetime(m.earlier_until),
            earlier_part=list(m.earlier_part) if m.earlier_part is not None else None,
            now_value=m.now_value,
            names_earlier=list(m.names_earlier),
            corrected_chain_ids=[strawberry.ID(c) for c in m.corrected_chains],
            learned=learned_from(m.source) is not None,
            learned_from_id=_id(learned_from(m.source)),
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

    @strawberry.field(description="A learned core item: the turn (episode) it was learned from.")
    async def learned_from(self, info: strawberry.Info) -> MemoryNode | None:
        return await _load(info, self.learned_from_id)

    @strawberry.field(
        description="A pattern: the episodes it summarizes, oldest first (they stay current)."
    )
    async def sources(self, info: strawberry.Info) -> list[MemoryNode]:
        if self.type is not MemoryType.PATTERN:
            return []
        ids = await info.context.brain.lifecycle.pattern_sources(info.context.tenant, str(self.id))
        loaded = await info.context.memory_loader.load_many(ids)
        return [MemoryNode.of(m) for m in loaded if m is not None]


def _id(value: str | None) -> strawberry.ID | None:
    return strawberry.ID(value) if value else None


async def _load(info: strawberry.Info, memory_id: str | None) -> MemoryNode | None:
    if memory_id is None:
        return None
    memory = await info.context.memory_loader.load(str(memory_id))
    return MemoryNode.of(memory) if memory is not None else None


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
