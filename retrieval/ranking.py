"""Score fused candidates into hits: the multi-signal formula applied to every candidate.

Ranking runs twice per search. First over light stand-ins built from the vector payloads
(type, times, importance, pinned, entities: everything but content and access statistics),
so the whole candidate union is ranked without hydrating it from the graph; then over the
hydrated shortlist, exactly. The shortlist is wide enough (``top_k·2 + 10``, and a margin of
30 past twenty hits) that the few signals a payload cannot give (access counts, a custom decay
class) do not change who is in it.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from core.clock import NEVER
from core.retrieval_types import RetrievalPath, SearchQuery
from core.settings import RetrievalSettings
from core.types import DecayClass, Hit, Memory, MemoryType, default_decay
from retrieval.filters import admits
from retrieval.scoring import combine, relevance_gate, signals_of, time_boost
from retrieval.temporal import in_windows


@dataclass(frozen=True)
class Evidence:
    """What the paths and the id-restricted scoring queries found for one search."""

    similarity: Mapping[str, float]
    keyword: Mapping[str, float]  # raw BM25
    fusion: Mapping[str, float]  # normalized RRF
    found_by: Mapping[str, tuple[str, ...]]
    neighbors: Mapping[str, set[str]]
    weights: Mapping[str, float]
    past: bool  # a question about past events: no recency boost


def stand_in(tenant_id: str, point_id: str, payload: Mapping[str, Any]) -> Memory | None:
    """A content-less Memory from a vector payload (None if the payload is unusable)."""
    try:
        kind = MemoryType(payload["type"])
        created = float(payload["created_at"])
        pinned = bool(payload.get("pinned", False))
        return Memory(
            id=point_id,
            tenant_id=str(payload.get("tenant_id", tenant_id)),
            type=kind,
            content="",
            content_hash="",
            created_at=created,
            valid_from=float(payload.get("valid_from", created)),
            importance=float(payload.get("importance", 0.5)),
            pinned=pinned,
            decay_class=_decay_class(payload, kind, pinned),
            expires_at=float(payload.get("expires_at", NEVER)),
            superseded_at=float(payload.get("superseded_at", NEVER)),
            project_id=payload.get("project_id"),
            session_id=payload.get("session_id"),
            entity_ids=tuple(payload.get("entity_ids") or ()),
        )
    except (KeyError, TypeError, ValueError):
        return None


def _decay_class(payload: Mapping[str, Any], kind: MemoryType, pinned: bool) -> DecayClass:
    """The stored class (role facts, promoted turns differ from their type's default)."""
    stored = payload.get("decay_class")
    if isinstance(stored, str) and stored in DecayClass.__members__.values():
        return DecayClass(stored)
    return default_decay(kind, pinned)


def rank(
    memories: Mapping[str, Memory],
    tenant_id: str,
    query: SearchQuery,
    at: float,
    evidence: Evidence,
    settings: RetrievalSettings,
) -> list[Hit]:
    """Hits for the admitted memories, best first (no diversity step)."""
    return [
        Hit(
            memory=memory,
            score=score,
            paths=tuple(str(p) for p in evidence.found_by.get(memory.id, _TURN)),
            signals=signals,
        )
        for memory, score, signals in _best_first(
            _scored(memories, tenant_id, query, at, evidence, settings)
        )
    ]


def order(
    memories: Mapping[str, Memory],
    tenant_id: str,
    query: SearchQuery,
    at: float,
    evidence: Evidence,
    settings: RetrievalSettings,
) -> list[str]:
    """The ids ``rank`` would return, in its order, without building hits (the first pass
    over every candidate only needs who is in the shortlist)."""
    scored = _best_first(_scored(memories, tenant_id, query, at, evidence, settings))
    return [memory.id for memory, _, _ in scored]


def _best_first(
    scored: Iterator[tuple[Memory, float, dict[str, float]]],
) -> list[tuple[Memory, float, dict[str, float]]]:
    """Highest score first; equal scores keep the candidates' order (both passes alike)."""
    return sorted(scored, key=lambda s: s[1], reverse=True)


_TURN = (RetrievalPath.CONVERSATION,)


def _scored(
    memories: Mapping[str, Memory],
    tenant_id: str,
    query: SearchQuery,
    at: float,
    evidence: Evidence,
    settings: RetrievalSettings,
) -> Iterator[tuple[Memory, float, dict[str, float]]]:
    """(memory, score, signals) of each admitted memory, in the mapping's order."""
    top_kw = max(evidence.keyword.values(), default=0.0)

    def kw(memory_id: str) -> float:
        return evidence.keyword.get(memory_id, 0.0) / top_kw if top_kw else 0.0

    w = evidence.weights

    def relevance(memory_id: str) -> float:
        return w["similarity"] * evidence.similarity.get(memory_id, 0.0) + w["keyword"] * kw(
            memory_id
        )

    # The gate's reference is the best relevance over all scored candidates, so both ranking
    # passes (stand-ins and the hydrated shortlist) gate the same memory alike.
    best = max((relevance(i) for i in {*evidence.similarity, *evidence.keyword}), default=0.0)
    query_entities = set(query.entity_ids)
    for memory_id, memory in memories.items():
        if not admits(memory, tenant_id, query, at):
            continue
        signals = signals_of(
            memory,
            similarity=evidence.similarity.get(memory_id, 0.0),
            keyword=kw(memory_id),
            at=at,
            query_entities=query_entities,
            project_id=query.project_id or query.prefer_project_id,
            active_tasks=query.active_task_ids,
            settings=settings,
        )
        near = evidence.neighbors.get(memory_id, ())
        share = settings.neighbor_weight * max((relevance(n) for n in near), default=0.0)
        when = settings.time_window_boost * in_windows(memory, query.time_windows)
        gate = relevance_gate(relevance(memory_id), best)
        boost = 0.0 if evidence.past else gate * time_boost(memory, at, settings.recency_boost)
        fusion = evidence.fusion.get(memory_id, 0.0)
        score = combine(
            signals,
            {**w, "recency": w["recency"] * gate},
            fusion=fusion,
            neighbor=share + when,
            boost=boost,
            fusion_weight=settings.fusion_weight,
        )
        if _corrected(memory, query.as_of if query.as_of is not None else at):
            score *= settings.corrected_weight
        signals.update(
            fusion=fusion,
            neighbor=share,
            recency_boost=boost,
            time_window=when,
            relevance_gate=gate,
        )
        yield memory, score, signals


def _corrected(memory: Memory, at: float) -> bool:
    """A turn whose statement had been corrected by ``at``."""
    return memory.corrected_at is not None and memory.corrected_at <= at


def shortlist(ordered: Sequence[str], top_k: int, keep: Sequence[str] = ()) -> list[str]:
    """Ids worth hydrating: the best ``top_k + min(top_k, 20) + 10`` (of ``order``'s ids;
    ``top_k·2 + 10`` up to twenty, a margin of thirty past it) plus ``keep`` (e.g. core
    memories)."""
    return list(dict.fromkeys([*ordered[: top_k + min(top_k, 20) + 10], *keep]))
