"""Scoring formulas, decay, fusion and diversity: properties that must hold for any input."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.decay import decay_factor
from core.errors import InvalidInput
from core.retrieval_types import SIGNALS, SearchMode
from core.settings import RetrievalSettings
from core.text import content_hash
from core.types import DecayClass, Hit, Memory, MemoryType
from retrieval.diversity import diversify
from retrieval.fusion import normalized, paths_of, rrf
from retrieval.scoring import (
    DAY,
    access_frequency,
    combine,
    jaccard,
    recency_signal,
    selectivity,
    signals_of,
    time_boost,
    weights_for,
)

S = RetrievalSettings()
NOW = 1_800_000_000.0
ids = st.text(alphabet="abcdef", min_size=1, max_size=3)


def memory(
    age_days: float = 0.0,
    decay: DecayClass = DecayClass.SLOW,
    accessed_days_ago: float | None = None,
    text: str = "x",
    entities: tuple[str, ...] = (),
    mid: str = "m",
) -> Memory:
    created = NOW - age_days * DAY
    return Memory(
        id=mid,
        tenant_id="t",
        type=MemoryType.FACT,
        content=text,
        created_at=created,
        valid_from=created,
        content_hash=content_hash(text),
        decay_class=decay,
        last_accessed_at=None if accessed_days_ago is None else NOW - accessed_days_ago * DAY,
        entity_ids=entities,
    )


@pytest.mark.parametrize(
    ("cls", "half_life"),
    [(DecayClass.SLOW, 90.0), (DecayClass.MEDIUM, 14.0), (DecayClass.FAST, 2.0)],
)
def test_decay_halves_every_half_life(cls: DecayClass, half_life: float) -> None:
    assert decay_factor(cls, NOW - half_life * DAY, NOW) == pytest.approx(0.5)
    assert decay_factor(cls, NOW - 2 * half_life * DAY, NOW) == pytest.approx(0.25)
    days = 3.7
    assert decay_factor(cls, NOW - days * DAY, NOW) == pytest.approx(
        math.exp(-math.log(2) * days / half_life)
    )


@given(st.floats(0, 5000), st.sampled_from(list(DecayClass)))
def test_time_is_bounded_and_foundations_never_decay(age: float, cls: DecayClass) -> None:
    m = memory(age, cls)
    assert 0.0 <= recency_signal(m, NOW) <= 1.0
    assert 0.0 <= time_boost(m, NOW, S.recency_boost) <= 0.15
    if cls is DecayClass.NONE:
        assert recency_signal(m, NOW) == 1.0 and time_boost(m, NOW, S.recency_boost) == 0.15


@given(st.floats(0, 1000), st.floats(0, 1000))
def test_older_never_ranks_fresher(a: float, b: float) -> None:
    young, old = sorted((a, b))
    assert recency_signal(memory(young), NOW) >= recency_signal(memory(old), NOW)
    assert time_boost(memory(young), NOW, S.recency_boost) >= time_boost(
        memory(old), NOW, S.recency_boost
    )


def test_recency_boost_shape_and_reaccess_resets_the_clock() -> None:
    shape = S.recency_boost
    assert [time_boost(memory(d), NOW, shape) for d in (3, 20, 60, 200)] == [0.15, 0.08, 0.03, 0.0]
    reaccessed = memory(200, accessed_days_ago=1)
    assert time_boost(reaccessed, NOW, shape) == 0.15
    assert recency_signal(reaccessed, NOW) > 0.99 > 0.3 > recency_signal(memory(200), NOW)


@given(st.integers(0, 10_000))
def test_access_frequency_is_monotone_and_saturates(n: int) -> None:
    f = access_frequency(n, 20)
    assert 0.0 <= f <= 1.0
    assert access_frequency(n + 1, 20) >= f
    assert access_frequency(20, 20) == 1.0


@given(st.sets(ids), st.sets(ids))
def test_jaccard_properties(a: set[str], b: set[str]) -> None:
    value = jaccard(a, b)
    assert 0.0 <= value <= 1.0 and value == jaccard(b, a)
    if a and a == b:
        assert value == 1.0
    if not a & b:
        assert value == 0.0


def test_weight_profiles_and_overrides() -> None:
    answer = weights_for(S, SearchMode.ANSWER, None)
    assert (answer["similarity"], answer["keyword"], answer["recency"]) == (0.45, 0.25, 0.10)
    assert answer["task_bonus"] == 0.0
    manager = weights_for(S, SearchMode.MANAGER, {"similarity": 0.5})
    assert manager["task_bonus"] == 0.15 and manager["project_match"] == 0.20
    assert manager["entity_match"] == 0.15 and manager["recency"] == 0.25
    assert manager["similarity"] == 0.5
    with pytest.raises(InvalidInput):
        weights_for(S, SearchMode.ANSWER, {"luck": 0.1})
    with pytest.raises(InvalidInput):
        weights_for(S, SearchMode.ANSWER, {"keyword": -0.1})


@given(st.lists(st.floats(0, 1), min_size=8, max_size=8), st.floats(0, 1), st.floats(0, 0.15))
def test_score_is_monotone_in_every_signal(
    values: list[float], fusion: float, boost: float
) -> None:
    weights = weights_for(S, SearchMode.ANSWER, None)
    signals = dict(zip(SIGNALS, values, strict=True))
    base = combine(signals, weights, fusion=fusion, neighbor=0, boost=boost, fusion_weight=0.3)
    for name in SIGNALS:
        more = {**signals, name: min(1.0, signals[name] + 0.1)}
        assert (
            combine(more, weights, fusion=fusion, neighbor=0, boost=boost, fusion_weight=0.3)
            >= base
        )


def test_signals_are_bounded() -> None:
    m = memory(1, entities=("a", "b"))
    sig = signals_of(
        m,
        similarity=1.7,
        keyword=-2,
        at=NOW,
        query_entities={"a"},
        project_id=None,
        active_tasks=(),
        settings=S,
    )
    assert set(sig) == set(SIGNALS)
    assert all(0.0 <= v <= 1.0 for v in sig.values())
    assert sig["entity_match"] == 0.5 and sig["similarity"] == 1.0 and sig["keyword"] == 0.0


@given(st.dictionaries(st.sampled_from(["A", "B", "C"]), st.lists(ids, max_size=6)))
def test_rrf_covers_the_union_and_rewards_agreement(ranked: dict[str, list[str]]) -> None:
    scores = rrf(ranked, 60)
    assert set(scores) == {i for v in ranked.values() for i in v}
    found = paths_of(ranked)
    for item, value in scores.items():
        assert value <= len(found[item]) / 61 + 1e-12
    assert all(0 <= v <= 1 for v in normalized(scores).values())


def test_a_single_path_first_rank_can_tie_the_best() -> None:
    scores = rrf({"KEYWORD": ["k"], "SEMANTIC": ["s", "x"], "ENTITY": ["e"]}, 60)
    assert scores["k"] == scores["s"] == scores["e"] > scores["x"]


def test_diversity_pushes_near_duplicates_down() -> None:
    a = Hit(memory=memory(text="The invoice is due Friday", mid="a"), score=0.9)
    b = Hit(memory=memory(text="The invoice is due Friday!", mid="b"), score=0.85)
    c = Hit(memory=memory(text="Acme pays by transfer", mid="c"), score=0.6)
    out = diversify([b, a, c], 0.8, 0.7, 0.5)
    assert [h.memory.id for h in out] == ["a", "c", "b"]
    other = Hit(
        memory=memory(text="The invoice is due Friday", entities=("x",), mid="d"), score=0.85
    )
    assert [h.memory.id for h in diversify([a, other], 0.8, 0.7, 0.5)] == ["a", "d"]


def _all_pairs_diversify(hits: list[Hit], et: float, tt: float, penalty: float) -> list[Hit]:
    """The definition, compared pair by pair (what ``diversify`` must equal)."""
    from retrieval.diversity import word_set

    def overlap(a: frozenset[str], b: frozenset[str]) -> float:
        return 1.0 if not a and not b else jaccard(a, b)

    kept: list[Hit] = []
    out: list[Hit] = []
    for hit in sorted(hits, key=lambda h: h.score, reverse=True):
        ents, words = frozenset(hit.memory.entity_ids), word_set(hit.memory.content)
        if any(
            overlap(ents, frozenset(k.memory.entity_ids)) > et
            and jaccard(words, word_set(k.memory.content)) >= tt
            for k in kept
        ):
            hit = hit.model_copy(update={"score": hit.score * penalty})
        else:
            kept.append(hit)
        out.append(hit)
    return sorted(out, key=lambda h: h.score, reverse=True)


@given(
    st.lists(
        st.tuples(
            st.lists(st.sampled_from(["a", "b", "c", "d"]), max_size=3),  # entities
            st.lists(st.sampled_from(["the", "invoice", "due", "paid", "x"]), max_size=4),
            st.floats(0.01, 1.0),
        ),
        max_size=25,
    ),
    st.sampled_from([0.0, 0.5, 0.8]),
)
def test_diversify_equals_the_all_pairs_definition(
    rows: list[tuple[list[str], list[str], float]], entity_threshold: float
) -> None:
    hits = [
        Hit(memory=memory(text=" ".join(w) or "x", entities=tuple(e), mid=f"m{i}"), score=sc)
        for i, (e, w, sc) in enumerate(rows)
    ]
    got = diversify(hits, entity_threshold, 0.6, 0.5)
    want = _all_pairs_diversify(hits, entity_threshold, 0.6, 0.5)
    assert [(h.memory.id, h.score) for h in got] == [(h.memory.id, h.score) for h in want]


@given(st.integers(0, 10_000), st.integers(0, 10_000))
def test_selectivity_is_bounded_and_falls_with_coverage(degree: int, total: int) -> None:
    value = selectivity(degree, total)
    assert 0.0 <= value <= 1.0
    if 0 < degree < total:
        assert selectivity(degree + 1, total) <= value


def test_selectivity_examples() -> None:
    assert selectivity(1, 5) == 1.0 or selectivity(1, 5) == pytest.approx(1.0)
    assert selectivity(300, 600) < 0.15 < 0.6 < selectivity(20, 25_000)
    assert selectivity(0, 100) == 1.0 and selectivity(100, 100) == 0.0
