"""Context scoring and the clarify-or-decide rule."""

from __future__ import annotations

import pytest

from core.types import Entity, EntityType
from resolution.disambiguate import (
    Scored,
    context_without,
    cosine,
    decide,
    informative,
    rank_by_context,
)


def person(ident: str, vector: tuple[float, ...] | None) -> Entity:
    return Entity(
        id=ident,
        tenant_id="t",
        name="Peter",
        type=EntityType.PERSON,
        profile_embedding=vector,
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


@pytest.mark.parametrize(
    ("scores", "winner"),
    [([0.5, 0.2], "a"), ([0.5, 0.49], None), ([0.05, 0.0], None), ([0.3], "a"), ([], None)],
)
def test_decide(scores: list[float], winner: str | None) -> None:
    ranked = [Scored(person(i, None), s) for i, s in zip("ab", scores, strict=False)]
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
