"""A resolve call's working data (``Turn``), shared by the resolver and the modules it calls
(``linking.py``, ``identity.py``, ``reading.py``)."""

from __future__ import annotations

from dataclasses import dataclass, field

from core.resolution_types import Clarification, NewIdentity, NewRelation, TrackedEntity
from core.types import Entity
from resolution.gazetteer import Gazetteer
from resolution.names import DocumentNames
from resolution.types import ParsedText, ResolvedMention, TrackerState


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
    document: DocumentNames | None = None  # a document's chunk: new names need its evidence
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
