"""Context scoring and the clarify-or-decide rule."""

from __future__ import annotations

import pytest

from core.types import Entity, EntityType
from resolution.disambiguate import (
    FACET_LEAD,
    KEYWORD_RELIEF,
    Scored,
    context_without,
    cosine,
    decide,
    informative,
    keyword_scores,
    rank_by_context,
    stem,
    terms,
)


def person(
    ident: str, vector: tuple[float, ...] | None, summary: str | None = None, name: str = "Peter"
) -> Entity:
    return Entity(
        id=ident,
        tenant_id="t",
        name=name,
        type=EntityType.PERSON,
        profile_embedding=vector,
        profile_summary=summary,
        first_seen=0,
        last_seen=0,
    )


def test_context_without_removes_name_and_possessive() -> None:
    text = "Check if Peter's content is passing as human, PETER said"
    assert context_without(text, ["Peter"]) == "Check if content is passing as human, said"


def test_rank_ignores_order_and_missing_profiles_score_zero() -> None:
    a, b, c = person("a", (1.0, 0.0)), person("b", (0.0, 1.0)), person("c", None)
    ranked = rank_by_context([0.9, 0.1], [c, b, a])
    assert [s.entity.id for s in ranked] == ["a", "b", "c"]
    assert ranked[-1].score == 0.0
    assert cosine([1, 0], [0, 0]) == 0.0


def scored(ident: str, score: float, facet: float | None = None, keyword: float = 0.0) -> Scored:
    """A candidate whose views agree with its score unless told otherwise."""
    return Scored(person(ident, None), score, score, score if facet is None else facet, keyword)


@pytest.mark.parametrize(
    ("scores", "winner"),
    [([0.5, 0.2], "a"), ([0.5, 0.49], None), ([0.05, 0.0], None), ([0.3], "a"), ([], None)],
)
def test_decide(scores: list[float], winner: str | None) -> None:
    ranked = [scored(i, s) for i, s in zip("ab", scores, strict=False)]
    best = decide(ranked, margin=0.025, floor=0.1)
    assert (best.entity.id if best else None) == winner


@pytest.mark.parametrize(
    ("context", "expected"),
    [
        ("Call tomorrow morning.", False),
        ("Tell I said hello.", False),
        ("Remind me to email later.", False),
        ("Is available to look at my aching tooth?", True),
        ("Check if content is passing as human", True),
    ],
)
def test_informative(context: str, expected: bool) -> None:
    assert informative(context) is expected


def test_stem_and_terms_meet_across_word_forms() -> None:
    assert stem("fixes") == stem("fixed") == stem("fix") == "fix"
    assert stem("batteries") == "battery" and stem("gas") == "gas"  # too short to cut
    assert terms("Call Peter tomorrow and fix the bugs") == {"peter", "fix", "bug"}


def test_keyword_scores_weigh_rare_words_and_ignore_own_names() -> None:
    dev = person("dev", None, "Peter Moreau writes code and fixes production bugs.", "Peter Moreau")
    mech = person("mech", None, "Peter Brandt fixes the brakes on the van.", "Peter Brandt")
    cook = person("cook", None, "Peter Lind runs the kitchen.", "Peter Lind")
    scores = keyword_scores("needs to fix the bug in the code, Moreau", [dev, mech, cook])
    # "fix" is shared by two candidates, "bug" and "code" only by one; a candidate's own
    # surname in the context is not profile evidence.
    assert scores["dev"] > scores["mech"] > scores["cook"] == 0.0
    assert (
        keyword_scores("fix it", [dev, mech])["dev"]
        == keyword_scores("fix it", [dev, mech])["mech"]
    )


def test_rank_mixes_whole_profile_and_best_facet() -> None:
    a, b = person("a", (1.0, 0.0)), person("b", (0.0, 1.0))
    facets = {"a": [(0.0, 1.0), (1.0, 0.0)], "b": [(0.6, 0.8)]}
    ranked = rank_by_context([1.0, 0.0], [b, a], facets, {"b": 1.5})
    assert [s.entity.id for s in ranked] == ["a", "b"]
    assert ranked[0].whole == 1.0 and ranked[0].facet == 1.0 and ranked[0].score == 1.0
    assert ranked[1].whole == 0.0 and abs(ranked[1].facet - 0.6) < 1e-9
    assert abs(ranked[1].score - 0.3) < 1e-9 and ranked[1].keyword == 1.5
    # Without facets a candidate is scored on its whole profile alone.
    assert rank_by_context([1.0, 0.0], [a])[0].score == 1.0


def test_keyword_agreement_relaxes_the_margin_only_for_the_same_candidate() -> None:
    gap = 0.025 * (KEYWORD_RELIEF + 1) / 2  # between the relaxed and the full margin
    close = [scored("a", 0.3), scored("b", 0.3 - gap)]
    assert decide(close, margin=0.025, floor=0.1) is None
    agreeing = [scored("a", 0.3, keyword=1.0), scored("b", 0.3 - gap)]
    assert decide(agreeing, margin=0.025, floor=0.1) is agreeing[0]
    other = [scored("a", 0.3), scored("b", 0.3 - gap, keyword=1.0)]
    assert decide(other, margin=0.025, floor=0.1) is None
    tied = [scored("a", 0.3, keyword=1.0), scored("b", 0.3 - gap, keyword=1.0)]
    assert decide(tied, margin=0.025, floor=0.1) is None
    too_close = [scored("a", 0.3, keyword=1.0), scored("b", 0.3 - 0.025 * KEYWORD_RELIEF / 2)]
    assert decide(too_close, margin=0.025, floor=0.1) is None


def test_views_that_disagree_or_tie_give_a_clarification() -> None:
    agree = [scored("a", 0.4, facet=0.5), scored("b", 0.3, facet=0.45)]
    assert decide(agree, margin=0.025, floor=0.1) is agree[0]
    disagree = [scored("a", 0.4, facet=0.5), scored("b", 0.3, facet=0.55)]
    assert decide(disagree, margin=0.025, floor=0.1) is None
    lead = 0.025 * FACET_LEAD
    tie = [scored("a", 0.4, facet=0.5), scored("b", 0.3, facet=0.5 - lead / 2)]
    assert decide(tie, margin=0.025, floor=0.1) is None
    ahead = [scored("a", 0.4, facet=0.5), scored("b", 0.3, facet=0.5 - 2 * lead)]
    assert decide(ahead, margin=0.025, floor=0.1) is ahead[0]
