"""Ranking fused candidates: time orders what is relevant, it does not make things relevant."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.retrieval_types import SearchMode, SearchQuery
from core.settings import RetrievalSettings
from core.text import content_hash
from core.types import DecayClass, Memory, MemoryType
from retrieval.ranking import Evidence, order, rank
from retrieval.scoring import DAY, relevance_gate, weights_for

S = RetrievalSettings()
NOW = 1_800_000_000.0


def memory(mid: str, age_days: float) -> Memory:
    created = NOW - age_days * DAY
    return Memory(
        id=mid,
        tenant_id="t",
        type=MemoryType.EPISODIC,
        content=mid,
        created_at=created,
        valid_from=created,
        content_hash=content_hash(mid),
        decay_class=DecayClass.MEDIUM,
    )


def evidence(similarity: dict[str, float], keyword: dict[str, float]) -> Evidence:
    ids = {*similarity, *keyword}
    return Evidence(
        similarity=similarity,
        keyword=keyword,
        fusion={i: 1.0 for i in ids},
        found_by={i: ("SEMANTIC",) for i in ids},
        neighbors={},
        weights=weights_for(S, SearchMode.ANSWER, None),
        past=False,
    )


@given(st.floats(-1, 10), st.floats(-1, 10))
def test_gate_is_a_bounded_share_of_the_best(relevance: float, best: float) -> None:
    gate = relevance_gate(relevance, best)
    assert 0.0 <= gate <= 1.0
    if best <= 0:
        assert gate == 1.0
    elif 0 <= relevance <= best:
        assert abs(gate - relevance / best) < 1e-9


def ranked(memories: list[Memory], ev: Evidence) -> list[str]:
    query = SearchQuery(query="what did the band play at the festival?", at=NOW)
    return [h.memory.id for h in rank({m.id: m for m in memories}, "t", query, NOW, ev, S)]


def test_a_recent_unrelated_turn_does_not_climb_over_an_older_answer() -> None:
    # Ungated, the half-day-old chatter would score 0.18 + 0.083 + 0.10·0.98 + 0.15 ≈ 0.51
    # against the four-month-old answer's 0.2025 + 0.25 ≈ 0.45: time alone would decide.
    answer, chatter = memory("answer", 120), memory("chatter", 0.5)
    ev = evidence({"answer": 0.45, "chatter": 0.40}, {"answer": 9.0, "chatter": 3.0})
    hits = rank(
        {m.id: m for m in (answer, chatter)},
        "t",
        SearchQuery(query="what did the band play at the festival?", at=NOW),
        NOW,
        ev,
        S,
    )
    assert [h.memory.id for h in hits] == ["answer", "chatter"]
    late = hits[1]
    assert 0.0 < late.signals["relevance_gate"] < 1.0
    # The boost it got is the gated share of the full step for its age.
    assert late.signals["recency_boost"] == late.signals["relevance_gate"] * 0.15
    assert hits[0].signals["relevance_gate"] == 1.0


def test_among_equally_relevant_memories_the_newer_still_wins() -> None:
    old, new = memory("old", 120), memory("new", 1)
    ev = evidence({"old": 0.5, "new": 0.5}, {"old": 4.0, "new": 4.0})
    assert ranked([old, new], ev) == ["new", "old"]


@given(
    st.lists(
        st.tuples(st.floats(0, 800), st.floats(0, 1), st.floats(0, 20)), min_size=1, max_size=25
    )
)
def test_order_is_rank_without_the_hits(rows: list[tuple[float, float, float]]) -> None:
    """The first ranking pass keeps only ids: the same ones, in the same order."""
    memories = {f"m{i}": memory(f"m{i}", age) for i, (age, _, _) in enumerate(rows)}
    ev = evidence(
        {f"m{i}": sim for i, (_, sim, _) in enumerate(rows)},
        {f"m{i}": kw for i, (_, _, kw) in enumerate(rows)},
    )
    query = SearchQuery(query="what did the band play at the festival?", at=NOW)
    hits = rank(memories, "t", query, NOW, ev, S)
    assert order(memories, "t", query, NOW, ev, S) == [h.memory.id for h in hits]
