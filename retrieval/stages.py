"""What each stage of a search hands the next (``Retriever._search`` reads as these stages).

    plan      the request checked: signal weights, "now", the vector filter    -> ``Plan``
    collect   the five paths' queries, run concurrently                         -> ``PathResults``
    fuse      the union of the paths' candidates and what is known of each      -> ``Candidates``
    expand    session neighbours of the strongest, every candidate's scores     -> ``Candidates``
    finalize  two-phase ranking, hydration, diversity                           -> ``Shortlist``

Plain data; the stages that fill the score maps (``expand``) add to them in place, so a
``Candidates`` is frozen in its fields, not in its maps' contents.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

from core.types import Hit, Memory
from graph.tenant import TenantGraph
from vectors.vector_index import ScoredId, VectorFilter


@dataclass(frozen=True)
class Plan:
    """The checked request as every later stage reads it."""

    tenant_id: str
    tenant: TenantGraph
    filter: VectorFilter
    weights: dict[str, float]  # the mode's profile with the caller's overrides
    past: bool  # about past events or an explicit time: no recency
    at: float  # "now" for recency and liveness


@dataclass(frozen=True)
class PathResults:
    """What the paths' own queries returned, before fusion."""

    vector: list[float]  # the query's topic, embedded
    entity_set: list[str]  # the query's entities, expanded through the graph
    entity_dense: list[ScoredId]  # nearest memories about the entity set
    entity_rows: list[tuple[str, tuple[str, ...]]]  # the entity set's memories in the graph
    degree: int  # how many memories the entity set is about
    dense: list[ScoredId]
    keyword: list[ScoredId]
    core: list[str]  # pinned memory ids, the most important first
    # The core path's ranking: the pinned ids but those learned from conversation, which a
    # context carries anyway and a search finds by what they say (always ranked, a few
    # learned lines took places of a search's evidence: LoCoMo 30, R@10 -0.01)
    core_path: list[str]
    total: int  # the tenant's memory count (0 without entities: not needed)


@dataclass(frozen=True)
class Candidates:
    """The fused candidates: per-path rankings and the signals known for each id."""

    ranked: dict[str, list[str]]  # path -> ids, best first
    path_weights: dict[str, float]  # RRF weight per path (entity path scaled by selectivity)
    weights: dict[str, float]  # signal weights (entity_match scaled by selectivity)
    supplied: dict[str, Memory]  # the caller's recent turns, by id
    known: dict[str, Mapping[str, Any]]  # index payloads the queries returned
    similarity: dict[str, float]
    bm25: dict[str, float]
    union: list[str]  # every candidate, the paths' first, then their neighbours
    links: dict[str, tuple[str, ...]] = field(default_factory=dict)  # seed -> neighbours


@dataclass(frozen=True)
class Shortlist:
    """The ranked result: the first (payload) ordering, the hydrated shortlist, the hits."""

    first: list[str]  # every admitted candidate, best first (stand-ins)
    hydrated: dict[str, Memory]  # the shortlist (and the core ids asked for) from the graph
    hits: list[Hit]  # exactly ranked, diversified, top-k
    stale_core: frozenset[str] = frozenset()  # learned core items a newer statement replaced
