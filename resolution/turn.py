"""A resolve call's working data (``Turn``), shared by the resolver and the modules it calls
(``linking.py``, ``identity.py``, ``reading.py``), and what those modules need of the resolver
(``Deciding``, ``Linking``, ``EntityRead``): they are given these, never the ``Resolver``, so
imports go one way (the resolver imports them, they import this)."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from core.resolution_types import Clarification, NewIdentity, NewRelation, TrackedEntity
from core.types import Entity
from graph.store import GraphStore
from resolution.disambiguate import Scored
from resolution.entity_cache import EntityCache
from resolution.gazetteer import Gazetteer, GazetteerCache
from resolution.profiles import ProfileBuilder
from resolution.types import Mention, NameEvidence, ParsedText, ResolvedMention, TrackerState

PENDING = "pending"  # ResolvedMention.method of a person's name awaiting ``identity.settle``


@dataclass
class Turn:
    """Working data of one resolve call."""

    tenant_id: str
    parsed: ParsedText
    at: float
    gazetteer: Gazetteer
    state: TrackerState | None
    resolved: dict[int, ResolvedMention] = field(default_factory=dict)  # by mention index
    clarification: Clarification | None = None
    entities: dict[str, Entity] = field(default_factory=dict)
    asked: set[str] = field(default_factory=set)  # ids read from the graph in this turn
    before: list[TrackedEntity] = field(default_factory=list)  # the stored state's entities
    scene_hints: set[str] = field(default_factory=set)
    profiles_later: bool = False  # the caller refreshes changed profiles off the request path
    source_memory_id: str | None = None  # the memory the text becomes: relations cite it
    writing: bool = False  # the write path: a known person's name waits for ``identity.py``
    document: NameEvidence | None = None  # a document's chunk: new names need its evidence
    decisions: list[dict[str, object]] = field(default_factory=list)  # left to the caller
    # With a ``source_memory_id``: the people this text introduces (id → their scored
    # candidates) and the relations stated of them, created by the caller's transaction.
    introduced: dict[str, tuple[tuple[str, float], ...]] = field(default_factory=dict)
    introduced_relations: dict[str, list[NewRelation]] = field(default_factory=dict)

    def new_identities(self) -> tuple[NewIdentity, ...]:
        """The people introduced, as they are now (tags and organisation this text stated)."""
        return tuple(
            NewIdentity(self.entities[i], links, tuple(self.introduced_relations.get(i, ())))
            for i, links in self.introduced.items()
        )


# The turn's entities by id, read once per turn (``Resolver.turn_entities``).
EntityRead = Callable[[Turn, Sequence[str]], Awaitable[dict[str, Entity]]]


class Deciding(Protocol):
    """What deciding a person's identity (``identity.settle``) needs of the resolver: the
    graph, the tenant's entity-creation lock, and context's choice among candidates."""

    @property
    def graph(self) -> GraphStore: ...

    def creating(self, tenant_id: str) -> asyncio.Lock: ...

    async def by_context(
        self, turn: Turn, m: Mention, candidates: Sequence[Entity]
    ) -> tuple[Scored | None, list[Scored]]: ...


class Linking(Deciding, Protocol):
    """What linking a written turn's names (``linking.link_new``) needs of the resolver, besides
    ``Deciding``: the tenant's name and entity caches, the profiles, the turn's entity reads."""

    @property
    def names(self) -> GazetteerCache: ...

    @property
    def entities(self) -> EntityCache: ...

    @property
    def profiles(self) -> ProfileBuilder: ...

    async def turn_entities(
        self, turn: Turn, ids: Sequence[str], full: set[str] | None = None
    ) -> dict[str, Entity]: ...
