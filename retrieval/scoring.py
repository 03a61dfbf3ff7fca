"""Multi-signal scoring after fusion: the formulas, pure and separately testable.

Every signal is in [0, 1]:

    similarity        cosine of query and memory (negative clamped to 0)
    keyword           BM25 score over the best BM25 score among the candidates
    recency           decay = exp(-ln2 · days / half-life) by decay class (core/decay.py),
                      days since last touched (created or re-accessed); 1.0 for class none
    importance        the memory's importance
    access_frequency  log(1 + accesses) / log(1 + saturation), capped at 1
    entity_match      Jaccard of the query's entities and the memory's entities
    project_match     1 when the memory belongs to the requested project
    task_bonus        1 for an open task memory or one of the caller's active tasks

    score = Σ weight·signal + fusion_weight·rrf/max_rrf + neighbour share + gate·boost

where boost is the bounded recency boost (+0.15 under 7 days, +0.08 under 30, +0.03 under 90
by default). Time changes ranking only and by a bounded amount; foundational memories (class
``none``: identity, roles, processes, pinned) are timeless, with full recency and full boost,
so an old foundation is never outranked by recent trivia on time alone.

Time orders what is relevant; it does not make something relevant. Both time terms (the
recency signal's weight and the boost) are scaled by the relevance gate: the candidate's
relevance (similarity and keyword, weighted) over the best relevance among the candidates,
so a recent but unrelated memory ("Bye, see you!") cannot climb over an older one that
answers the question, while among equally relevant memories the newer still wins.
"""

from __future__ import annotations

import math
from collections.abc import Collection, Mapping, Sequence

from core.decay import decay_factor
from core.errors import InvalidInput
from core.retrieval_types import SIGNALS, SearchMode
from core.settings import RetrievalSettings, WeightProfile
from core.types import DecayClass, Memory, MemoryType

DAY = 86_400.0


def weights_for(
    settings: RetrievalSettings, mode: SearchMode, overrides: Mapping[str, float] | None
) -> dict[str, float]:
    """The mode's weight profile with per-request overrides applied.

    Raises:
        InvalidInput: an unknown signal name or a weight outside [0, 1].
    """
    profile: WeightProfile = settings.manager if mode is SearchMode.MANAGER else settings.answer
    weights = profile.model_dump()
    for name, value in (overrides or {}).items():
        if name not in SIGNALS:
            raise InvalidInput(f"unknown weight {name!r}; known: {list(SIGNALS)}", field="weights")
        if not isinstance(value, int | float) or not 0.0 <= float(value) <= 1.0:
            raise InvalidInput(f"weight {name} must be in [0, 1]", field="weights")
        weights[name] = float(value)
    return weights


def last_touched(memory: Memory) -> float:
    """When the decay clock last started: creation, or the latest access (re-access resets)."""
    return max(memory.created_at, memory.last_accessed_at or 0.0)


def recency_boost(age_days: float, shape: Sequence[tuple[float, float]]) -> float:
    """The bounded boost for an age: the first (max_days, boost) step the age is under."""
    for max_days, boost in shape:
        if age_days < max_days:
            return boost
    return 0.0


def recency_signal(memory: Memory, at: float) -> float:
    """Class-based decay since last touched; 1.0 for memories that never decay."""
    return decay_factor(memory.decay_class, last_touched(memory), at)


def time_boost(memory: Memory, at: float, shape: Sequence[tuple[float, float]]) -> float:
    """The bounded recency boost; timeless memories always get the largest step."""
    if memory.decay_class is DecayClass.NONE:
        return max((b for _, b in shape), default=0.0)
    age_days = max(0.0, at - last_touched(memory)) / DAY
    return recency_boost(age_days, shape)


def access_frequency(count: int, saturation: int) -> float:
    if count <= 0 or saturation <= 0:
        return 0.0
    return min(1.0, math.log1p(count) / math.log1p(saturation))


def jaccard(a: Collection[str], b: Collection[str]) -> float:
    """|a ∩ b| / |a ∪ b|; 0 when both are empty."""
    sa, sb = set(a), set(b)
    union = sa | sb
    return len(sa & sb) / len(union) if union else 0.0


def signals_of(
    memory: Memory,
    *,
    similarity: float,
    keyword: float,
    at: float,
    query_entities: Collection[str],
    project_id: str | None,
    active_tasks: Collection[str],
    settings: RetrievalSettings,
) -> dict[str, float]:
    """All eight signals of one candidate (see the module docstring)."""
    open_task = memory.type is MemoryType.TASK and memory.is_current
    return {
        "similarity": min(1.0, max(0.0, similarity)),
        "keyword": min(1.0, max(0.0, keyword)),
        "recency": recency_signal(memory, at),
        "importance": min(1.0, max(0.0, memory.importance)),
        "access_frequency": access_frequency(memory.access_count, settings.access_saturation),
        "entity_match": jaccard(query_entities, memory.entity_ids),
        "project_match": 1.0 if project_id and memory.project_id == project_id else 0.0,
        "task_bonus": 1.0 if open_task or memory.id in active_tasks else 0.0,
    }


def relevance_gate(relevance: float, best: float) -> float:
    """The share of the best candidate's relevance this one has, in [0, 1]; 1 when no
    candidate has any (nothing to gate by, so time alone may order them)."""
    if best <= 0:
        return 1.0
    return min(1.0, max(0.0, relevance / best))


def combine(
    signals: Mapping[str, float],
    weights: Mapping[str, float],
    *,
    fusion: float,
    neighbor: float,
    boost: float,
    fusion_weight: float,
) -> float:
    """The final score from signals, normalized fusion, neighbour share and recency boost."""
    base = sum(weights.get(name, 0.0) * signals.get(name, 0.0) for name in SIGNALS)
    return base + fusion_weight * fusion + neighbor + boost


def selectivity(degree: int, total: int) -> float:
    """How much an entity set narrows the tenant: log(N / df) / log(N), in [0, 1].

    An entity most memories are about (the only two speakers of a chat) says little; one
    that a handful of memories are about says a lot. Unknown sizes count as fully selective.
    """
    if degree <= 0 or total <= 1:
        return 1.0
    if degree >= total:
        return 0.0
    return max(0.0, min(1.0, math.log(total / degree) / math.log(total)))
