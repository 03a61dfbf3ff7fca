"""Domain types of the read side: search requests and hits, context requests and layers.

Plain typed data with no engine logic. ``retrieval/`` produces them, the facade and the
GraphQL layer translate them; resolution's ``TrackedEntity`` and ``Clarification``
(``core/resolution_types.py``) pass through untouched.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from enum import StrEnum

from core.resolution_types import Clarification, TrackedEntity
from core.types import Hit, Memory, MemoryType


class SearchMode(StrEnum):
    """Which weight profile ranks the hits."""

    ANSWER = "answer"  # answer a question: similarity and keywords first
    MANAGER = "manager"  # run the work: tasks, project, entities and recency first


class RetrievalPath(StrEnum):
    """The independent retrieval paths; each hit lists the ones that found it."""

    ENTITY = "ENTITY"
    SEMANTIC = "SEMANTIC"
    KEYWORD = "KEYWORD"
    CONVERSATION = "CONVERSATION"
    CORE = "CORE"


SIGNALS = (
    "similarity",
    "keyword",
    "recency",
    "importance",
    "access_frequency",
    "entity_match",
    "project_match",
    "task_bonus",
)


class Layer(StrEnum):
    """Context layers, from the most stable to the most ephemeral (injection order)."""

    PROCEDURAL = "procedural"
    PROJECT_CONTEXT = "project_context"
    MEMORIES = "memories"
    DOCUMENT_CHUNKS = "document_chunks"
    RECENT_CONVERSATION = "recent_conversation"


@dataclass(frozen=True)
class SearchQuery:
    """One multi-path search.

    ``entity_ids`` are the resolved and salient entities (from a ``Resolution`` and the
    session tracker), ``recent_turns`` the session's working memory: both are supplied by the
    caller, so retrieval does not depend on how they were produced. ``weights`` overrides
    single signal weights of the mode's profile (keys from ``SIGNALS``).
    """

    query: str
    mode: SearchMode = SearchMode.ANSWER
    top_k: int = 10
    project_id: str | None = None
    types: tuple[MemoryType, ...] | None = None
    since: float | None = None
    until: float | None = None
    as_of: float | None = None
    weights: Mapping[str, float] | None = None
    session_id: str | None = None
    # User scope: this user's memories plus the tenant's shared ones (no user); None: all.
    user_id: str | None = None
    entity_ids: tuple[str, ...] = ()
    # People the query's names did not mean (namesakes of a resolved person, or every
    # candidate of an ambiguous name): memories about them are left out of every path unless
    # they are also about one of ``entity_ids``.
    exclude_entity_ids: tuple[str, ...] = ()
    recent_turns: tuple[Memory, ...] = ()
    active_task_ids: tuple[str, ...] = ()
    prefer_project_id: str | None = None  # project_match without filtering (context assembly)
    # Explicit time expressions resolved against the turn time, [start, end) epoch seconds
    # (``Resolution.parsed.times``): memories from inside a window rank higher.
    time_windows: tuple[tuple[float, float], ...] = ()
    at: float | None = None  # "now" for recency and liveness (default: the clock)


@dataclass(frozen=True)
class SearchMetadata:
    candidates_per_path: dict[str, int] = field(default_factory=dict)
    post_filter_count: int = 0
    latency_ms: float = 0.0


@dataclass(frozen=True)
class SearchResponse:
    hits: list[Hit]
    metadata: SearchMetadata


@dataclass(frozen=True)
class ContextRequest:
    """What ``assemble_context`` needs for one model call.

    ``query`` defaults to the latest turn's content. ``tracked`` and ``clarification`` come
    from resolution and are passed through as given.
    """

    session_id: str
    user_id: str | None = None
    project_id: str | None = None
    query: str | None = None
    token_budget: int | None = None
    mode: SearchMode = SearchMode.ANSWER
    entity_ids: tuple[str, ...] = ()
    exclude_entity_ids: tuple[str, ...] = ()  # as ``SearchQuery.exclude_entity_ids``
    described: tuple[str, ...] = ()  # the resolved entities by their key facts (resolution)
    recent_turns: tuple[Memory, ...] = ()  # oldest first
    tracked: Sequence[TrackedEntity] = ()
    clarification: Clarification | None = None
    weights: Mapping[str, float] | None = None
    at: float | None = None


@dataclass(frozen=True)
class ContextItem:
    memory: Memory
    layer: Layer
    score: float


@dataclass(frozen=True)
class AssembledContext:
    """The five layers as plain text, their exact token counts and what went in.

    ``text`` is what an LLM receives (non-empty layers under short headers, most stable
    first); ``total_tokens`` counts exactly that text and never exceeds the budget.
    """

    layers: dict[Layer, str]
    token_counts: dict[Layer, int]
    total_tokens: int
    text: str
    items: list[ContextItem]
    tracked_entities: list[TrackedEntity] = field(default_factory=list)
    clarification: Clarification | None = None
    token_budget: int = 0
    summarized_turns: int = 0  # older turns folded into an extractive summary
