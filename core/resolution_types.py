"""What resolution hands the rest of the service: a session's tracked entities, the question
asked instead of a guess, and what a read's text refers to.

Plain typed data. ``resolution/`` produces them; ``ingest/`` (a turn's result), ``retrieval/``
(a context's tracked entities and clarification) and the API pass them on. The resolver's
own working types (mentions, parses, tracker state) stay in ``resolution/types.py``.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field

from core.types import Entity


@dataclass(frozen=True)
class Clarification:
    """Returned instead of a guess when context cannot separate the candidates."""

    question: str  # "Which Peter?"
    mention: str
    candidates: tuple[Entity, ...]
    # One per candidate: what tells them apart ("Sarah, designer at Brightpath Media").
    descriptions: tuple[str, ...] = ()


@dataclass(frozen=True)
class TrackedEntity:
    """An entity's salience in a session after the latest turn."""

    entity: Entity
    salience: float
    scope: str = "mention"  # scene | topic | mention


@dataclass(frozen=True)
class References:
    """What a read's text refers to, as resolution understands it without creating anything
    or advancing the session: the read side's input from resolution."""

    entity_ids: tuple[str, ...] = ()  # the entities the text names, resolved
    entities: Mapping[str, Entity] = field(default_factory=dict)  # those read while resolving
    clarification: Clarification | None = None
    windows: tuple[tuple[float, float], ...] = ()  # its time expressions, [start, end)
    excluded: tuple[str, ...] = ()  # people its names did not mean (namesakes, asked about)
    described: tuple[str, ...] = ()  # the resolved entities by their key facts
    tracked: tuple[TrackedEntity, ...] = ()  # the session's entities, most salient first


@dataclass(frozen=True)
class IdentityDecision:
    """Who the write path took a mention to be, with the scores that decided it: a recorded
    automatic decision (``identityDecisions``), so a wrong link can be found and undone."""

    id: str
    mention: str  # the name as written
    outcome: str  # linked | new | provisional
    entity_id: str | None = None  # the entity linked to or created
    memory_id: str | None = None  # the memory whose text it was
    candidates: tuple[str, ...] = ()  # the same-named entities weighed
    scores: tuple[float, ...] = ()  # one per candidate
    reasons: tuple[str | None, ...] = ()  # one per candidate
    at: float | None = None


@dataclass(frozen=True)
class NewRelation:
    """A relation a new person was stated to have ("Sarah from the law firm Brandt & Voss")."""

    target_id: str
    relation: str  # works_for | belongs_to | located_in | client_of
    since: float


@dataclass(frozen=True)
class NewIdentity:
    """A person the write path decided is none of the known entities of that name, or could
    not tell (``entity.provisional``), as the caller's transaction is to create it: with its
    role tags and organisation, a scored ``POSSIBLY_SAME_AS`` link to each candidate it may
    be (id, score), and the relations the text stated."""

    entity: Entity
    links: tuple[tuple[str, float], ...] = ()
    relations: tuple[NewRelation, ...] = ()
