"""Domain objects: plain typed data with no database logic.

Stores translate engine records into these in one place (``graph/records.py``); the API
translates them into GraphQL types.
"""

from __future__ import annotations

from enum import StrEnum

from pydantic import BaseModel, ConfigDict, Field, field_validator

from core.clock import NEVER
from core.validation import check_range


class MemoryType(StrEnum):
    EPISODIC = "episodic"
    SEMANTIC = "semantic"
    WORKING = "working"
    DOCUMENT = "document"
    PROCEDURAL = "procedural"
    PREFERENCE = "preference"
    FACT = "fact"
    PATTERN = "pattern"
    TASK = "task"


class DecayClass(StrEnum):
    """How fast a memory fades in ranking (never in storage)."""

    NONE = "none"
    SLOW = "slow"  # 90 days half-life
    MEDIUM = "medium"  # 14 days
    FAST = "fast"  # 48 hours


class EntityType(StrEnum):
    PERSON = "person"
    ORG = "org"
    PROJECT = "project"
    PLACE = "place"
    SYSTEM = "system"
    PROCESS = "process"
    CONCEPT = "concept"


# Memories that describe who/what things are or how things are done never decay.
FOUNDATIONAL_TYPES = frozenset({MemoryType.PROCEDURAL, MemoryType.SEMANTIC, MemoryType.PATTERN})
# Facts of identity and roles are foundational too, whatever their type: "Peter is a writer
# at WOBS", said once years ago, must not fade (a correction supersedes it instead).
FOUNDATIONAL_PREDICATES = frozenset({"role", "employer", "alias", "is_a", "member_of"})


def default_decay(
    memory_type: MemoryType, pinned: bool = False, predicate: str | None = None
) -> DecayClass:
    if pinned or memory_type in FOUNDATIONAL_TYPES or predicate in FOUNDATIONAL_PREDICATES:
        return DecayClass.NONE
    if memory_type in (MemoryType.WORKING, MemoryType.EPISODIC):
        return DecayClass.MEDIUM if memory_type is MemoryType.EPISODIC else DecayClass.FAST
    return DecayClass.SLOW


def indexed_text(content: str, speaker: str | None = None) -> str:
    """What a memory is found by: its content, prefixed by the speaker for a turn
    ("Caroline: I went to a support group"), so "what did Caroline do?" matches her turns by
    meaning and by name. The stored content stays as said."""
    return f"{speaker}: {content}" if speaker else content


LEARNED = "learned"  # the source of core memory learned from a turn: "learned:<kind>:<turn id>"


def learned_from(source: str | None) -> str | None:
    """The turn (its memory id) a core item learned from conversation came from, or None
    for any other memory (``ingest/learned``)."""
    parts = (source or "").split(":")
    return parts[2] if len(parts) == 3 and parts[0] == LEARNED and parts[2] else None


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class Memory(_Frozen):
    """One memory record. Times are epoch seconds; ``NEVER`` means not set."""

    id: str
    tenant_id: str
    type: MemoryType
    content: str
    user_id: str | None = None
    project_id: str | None = None
    session_id: str | None = None
    importance: float = 0.5
    access_count: int = 0
    decay_class: DecayClass = DecayClass.SLOW
    created_at: float
    valid_from: float
    last_accessed_at: float | None = None
    expires_at: float = NEVER
    superseded_at: float = NEVER
    superseded_by: str | None = None
    supersedes: str | None = None
    source: str | None = None
    content_hash: str
    pinned: bool = False
    indexed: bool = False
    entity_ids: tuple[str, ...] = ()
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    confidence: float | None = None
    # Hidden by the lifecycle (not current, still in the graph): a merged duplicate names the
    # memory that won; a pruned restatement the memory that carries its content.
    merged_into: str | None = None
    pruned_at: float | None = None
    carried_by: str | None = None
    # An episode a pattern summarizes (it stays current and visible beside the pattern).
    summarized_by: str | None = None
    # A turn: who said it (the turn's ``speaker``), part of what the turn is found by.
    turn_speaker: str | None = None
    # An episode (a turn as said) one of whose statements a later memory superseded: when
    # that first happened. It stays current (it is what was said); contexts mark it.
    corrected_at: float | None = None
    # A procedure: when or what it is for, and its steps in order.
    trigger: str | None = None
    steps: tuple[str, ...] = ()
    # The statements of a turn (or of a statement memory), one compact line each
    # (``ingest.slots.analysis.Statement.dumps``): what a later statement is compared with.
    statements: tuple[str, ...] = ()
    # A statement's slot: what it gives a value of, its frame with the values masked
    # ("deploy target <thing>"); statements of one slot supersede each other.
    slot: str | None = None
    # An episode one of whose statements was superseded: the chains (``chain_id``) whose
    # current version now says what it said, so a read can put that version first.
    corrected_chains: tuple[str, ...] = ()
    # The supersede chain this memory is a version of: the id of its first version.
    chain_id: str | None = None
    # Set by a read, never stored: this memory says an earlier value of a slot whose value
    # since then is in the same result, and until when it was the value.
    earlier_until: float | None = None
    # Set by a read with ``earlier_until`` when the memory says other things that still hold
    # ("my manager is Priyanka Rao, and the office is in the Harbor building, floor 6"): the
    # span of its content that says the earlier value.
    earlier_part: tuple[int, int] | None = None
    # Set by a read, never stored: this memory holds a slot's current value and its words
    # also name a value the slot held before ("Marcus already left. our lead now is Elena
    # Brandt"): the current value, and the earlier ones it names, so neither is misread.
    now_value: str | None = None
    names_earlier: tuple[str, ...] = ()

    @property
    def indexed_text(self) -> str:
        """The text the vector index embeds and keyword-indexes (``indexed_text``)."""
        return indexed_text(self.content, self.turn_speaker)

    @property
    def is_current(self) -> bool:
        return self.superseded_by is None and self.superseded_at >= NEVER

    def is_live(self, at: float) -> bool:
        """Not soft-deleted and not expired at ``at``."""
        return self.expires_at > at

    def valid_at(self, at: float) -> bool:
        """Was this the current version of its fact at time ``at``?"""
        return self.valid_from <= at < self.superseded_at


class NewMemory(BaseModel):
    """What a caller supplies to store a memory; the store fills ids and times."""

    model_config = ConfigDict(extra="forbid")

    content: str
    type: MemoryType = MemoryType.FACT
    user_id: str | None = None
    project_id: str | None = None
    session_id: str | None = None
    importance: float = 0.5
    decay_class: DecayClass | None = None
    pinned: bool = False
    valid_from: float | None = None
    created_at: float | None = None
    expires_at: float | None = None
    source: str | None = None
    entity_ids: list[str] = Field(default_factory=list)
    subject: str | None = None
    predicate: str | None = None
    object: str | None = None
    confidence: float | None = None
    trigger: str | None = None
    steps: list[str] = Field(default_factory=list)
    statements: list[str] = Field(default_factory=list)
    slot: str | None = None

    @field_validator("importance")
    @classmethod
    def _importance_in_range(cls, value: float) -> float:
        # An InvalidInput raised here reaches the caller through ``invalid_input`` (the range
        # in words), not as pydantic's generic "less than or equal" message.
        return check_range(value, "importance", 0.0, 1.0)


class Entity(_Frozen):
    id: str
    tenant_id: str
    name: str
    type: EntityType
    aliases: tuple[str, ...] = ()
    parent_id: str | None = None
    profile_summary: str | None = None
    profile_embedding: tuple[float, ...] | None = None
    context_tags: tuple[str, ...] = ()
    first_seen: float
    last_seen: float
    merged_into: str | None = None
    # Born from a mention the write path could not tell from known same-named entities: it has
    # POSSIBLY_SAME_AS links to them, an open identity question until curated.
    provisional: bool = False


class EntityRelation(_Frozen):
    id: str
    source_id: str
    target_id: str
    relation: str
    since: float | None = None
    until: float | None = None
    source_memory_id: str | None = None


class LineageLink(_Frozen):
    """One memory in a supersede chain, oldest first."""

    memory: Memory
    reason: str | None = None  # why this one replaced its predecessor
    replaced_at: float | None = None
    current: bool = False


class EntityMerge(_Frozen):
    id: str
    keep_id: str
    drop_ids: tuple[str, ...]
    reason: str
    at: float
    by: str | None = None
    undone_at: float | None = None


class DiskCheck(_Frozen):
    """What an erase verified in the embedded engines' files, after compacting them.

    ``scanned``: the files under the engines' directories were read (False on servers, whose
    files this process cannot see: see docs/OPERATIONS.md on erasing there). ``traces`` names each
    file that still held an erased id or string, with the value found; ``pending`` says what
    keeps them and when they go. ``clean``: scanned, and no file held anything erased.
    """

    scanned: bool = False
    files: int = 0
    vectors_compacted: bool = False
    graph_compacted: bool = False
    traces: tuple[str, ...] = ()
    pending: str | None = None

    @property
    def clean(self) -> bool:
        return self.scanned and not self.traces


class EraseReport(_Frozen):
    """What an erase removed from both engines and what it cleaned up around it.

    ``memory_ids`` lists every erased memory: the subject's own, plus ``derived_memories``
    (extractions from erased turns, earlier versions, merged duplicates) and ``patterns``
    (patterns summarizing an erased episode; their other episodes are ``restored_memories``,
    current again). The other counts are records that named erased ids or held their text.
    ``verified``: afterwards neither engine held any erased memory. ``disk``: what was
    compacted and then found (or not) in the engines' files.
    """

    memory_ids: tuple[str, ...] = ()
    entity_ids: tuple[str, ...] = ()
    vector_points: int = 0
    derived_memories: int = 0
    patterns: int = 0
    restored_memories: int = 0
    reprofiled_entities: int = 0
    conflicts: int = 0
    jobs: int = 0
    sessions: int = 0
    documents: int = 0
    feedback: int = 0
    relations: int = 0
    verified: bool = False
    disk: DiskCheck = DiskCheck()


class Hit(_Frozen):
    memory: Memory
    score: float
    paths: tuple[str, ...] = ()
    signals: dict[str, float] = Field(default_factory=dict)
