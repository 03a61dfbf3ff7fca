"""What the parse and resolve steps produce: the contract between resolution/ and its users.

ingest/ (recordTurn, documents) and retrieval/ (entity path, assembleContext) depend only on
these types and on the ``EntityResolver`` protocol, not on how resolution works inside.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from core.resolution_types import Clarification, NewIdentity, TrackedEntity
from core.times import TimeMention
from core.types import Entity, EntityType


@dataclass(frozen=True)
class Mention:
    """A span of text that refers to something: a name, an alias or a pronoun."""

    text: str
    start: int
    end: int
    entity_type: EntityType | None = None  # best guess from NER / ruler / heuristics
    source: str = "ner"  # ner | ruler | heuristic | pronoun | declaration


@dataclass(frozen=True)
class AliasDeclaration:
    """ "Wolf of Blog Street, also known as WOBS" → name="Wolf of Blog Street", alias="WOBS"."""

    name: str
    alias: str


@dataclass(frozen=True)
class RelationMention:
    """ "Peter is one of our writers" → subject="Peter", relation="role", object="writer"."""

    subject: str
    relation: str  # role | belongs_to | works_for | located_in | ...
    object: str


@dataclass(frozen=True)
class ParsedText:
    text: str
    mentions: tuple[Mention, ...] = ()
    aliases: tuple[AliasDeclaration, ...] = ()
    relations: tuple[RelationMention, ...] = ()
    times: tuple[TimeMention, ...] = ()
    # The spaCy ``Doc`` of a full parse (None for a light one): ingest's statement extractor
    # reads its dependency parse instead of parsing the turn a second time.
    doc: Any = field(default=None, compare=False, repr=False)
    # The statistical model's entities (start, end, label): a document's evidence of a name.
    named: tuple[tuple[int, int, str], ...] = ()
    # Spans of one-word names that open a sentence and are common words there ("Glad you
    # came"): resolved when the tenant knows them, never made entities (``names.py``).
    by_place: tuple[tuple[int, int], ...] = ()
    # Spans of one-word names the model's lexicon lists as adjectives or adverbs ("False",
    # "Benevolent"): a document's new name is never one of them (``names.Lexicon``).
    modifiers: tuple[tuple[int, int], ...] = ()


@dataclass(frozen=True)
class ResolvedMention:
    mention: Mention
    entity: Entity | None  # None: unknown name (may be created by the caller) or ambiguous
    confidence: float = 0.0
    method: str = ""  # alias | similarity | context | tracker | created
    candidates: tuple[Entity, ...] = ()


@dataclass(frozen=True)
class Resolution:
    parsed: ParsedText
    resolved: tuple[ResolvedMention, ...] = ()
    clarification: Clarification | None = None
    tracked: tuple[TrackedEntity, ...] = ()
    state: TrackerState | None = None  # the session's tracker after this text (with a session)
    # Reads only: people who share a resolved person's name but are not the one meant (their
    # memories stay out of the answer), and each resolved entity described by its key facts.
    namesakes: tuple[str, ...] = ()
    described: tuple[str, ...] = ()
    # Writes with a ``source_memory_id``: identity decision records (``identity.py``) left for
    # the caller to store in the transaction that creates that memory.
    decisions: tuple[dict[str, object], ...] = ()
    # And the people it introduced (new or provisional), for that transaction to create
    # before the memory; ``EntityResolver.introduced`` once it committed.
    created: tuple[NewIdentity, ...] = ()

    @property
    def entity_ids(self) -> list[str]:
        """Ids of the entities this text refers to, in order of first mention, no duplicates."""
        seen: dict[str, None] = {}
        for r in self.resolved:
            if r.entity is not None:
                seen.setdefault(r.entity.id, None)
        return list(seen)


@dataclass
class TrackerState:
    """Per-session tracker state; persisted with the session."""

    salience: dict[str, float] = field(default_factory=dict)
    scope: dict[str, str] = field(default_factory=dict)
    turn: int = 0


class NameEvidence(Protocol):
    """What a document says of the new names in its chunks (``names.DocumentNames``)."""

    def admits(self, m: Mention, named: Sequence[tuple[int, int, str]]) -> bool:
        """May ``m``, found in a chunk whose statistical entities are ``named``, become a new
        entity?"""
        ...


class EntityResolver(Protocol):
    """The resolve step. Implemented in resolution/; used by ingest/ and retrieval/."""

    async def resolve(
        self,
        tenant_id: str,
        text: str,
        session_id: str | None = None,
        at: float | None = None,
        create_missing: bool = False,
        update_session: bool = True,
        tracker: Awaitable[TrackerState] | None = None,
        profiles_later: bool = False,
        source_memory_id: str | None = None,
        light: bool = False,
        document: NameEvidence | None = None,
    ) -> Resolution:
        """Parse ``text`` and resolve its references for a tenant.

        ``session_id`` enables pronoun resolution and updates that session's tracker
        (``update_session=False`` leaves storing ``Resolution.state`` to the caller);
        ``tracker`` is the session's stored tracker when the caller reads the session anyway
        (saves a round trip); ``at`` is the time temporal expressions resolve against
        (default now); ``create_missing`` creates entities for confident new names and
        declared aliases (the write path); reads never create. ``profiles_later`` leaves the
        profiles of created or changed entities to the caller's queued refresh.
        ``source_memory_id`` is the memory the text becomes: relations it states cite it, and
        the people it introduces are left for the caller to create with that memory
        (``Resolution.created``, then ``introduced``). ``document`` (without a session): the
        text is a chunk of that document, which must vouch for a new name (``names.py``); it
        links a known person on a clear fit only and never opens an identity question.
        """
        ...

    async def tracked(self, tenant_id: str, session_id: str) -> Sequence[TrackedEntity]:
        """The session's entities by salience, highest first."""
        ...

    async def speaker(self, tenant_id: str, name: str, at: float) -> Entity | None:
        """The person a turn's speaker name stands for (created when new); None for a role
        name ("assistant") or a name several people share."""
        ...

    def introduced(self, tenant_id: str, created: Sequence[NewIdentity]) -> None:
        """The caller committed the people a ``resolve`` with a ``source_memory_id`` left it
        to create (``Resolution.created``): later texts find them by name."""
        ...


def type_filter(m: Mention, candidates: list[Entity]) -> list[Entity]:
    """Types must agree when some candidate agrees with the mention's type; the type of a
    mention is often a statistical guess ("Jordan" as a place), so a disagreeing guess does
    not hide a known entity. Ruler mentions take their type from the candidates anyway."""
    if m.entity_type is None or m.source == "ruler":
        return candidates
    agreeing = [c for c in candidates if c.type is m.entity_type]
    return agreeing or candidates
