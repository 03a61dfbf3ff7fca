"""A hit that never said a value as so now (a plan, a supposition, a recollection of another
time) goes after the hit that states the value of its slot: one slot by the frame, or the same
subject as the parse read it ("at my old company the lead designer was Marco" after "Priya is
our lead designer"). A hit of another subject keeps its place."""

from __future__ import annotations

from typing import Any

from core.types import Hit
from retrieval.pairs import assertions_first
from tests.memories import said

DAY = 86_400.0
PRIYA = "Priya is our lead designer, loop her in on anything UI related"
MARCO = "at my old company the lead designer was Marco and he would've hated this new layout lol"


def test_a_recollection_of_the_same_subject_goes_after_its_current_value(nlp: Any) -> None:
    current = said(nlp, PRIYA, 10 * DAY)
    recalled = said(nlp, MARCO, 46 * DAY)

    out = assertions_first([Hit(memory=recalled, score=1.0), Hit(memory=current, score=0.8)])

    assert [h.memory.id for h in out] == [current.id, recalled.id]


def test_a_recollection_of_another_subject_keeps_its_place(nlp: Any) -> None:
    other = said(nlp, "Priya is our data analyst, loop her in on anything about metrics", 10 * DAY)
    recalled = said(nlp, MARCO, 46 * DAY)
    hits = [Hit(memory=recalled, score=1.0), Hit(memory=other, score=0.8)]

    assert [h.memory.id for h in assertions_first(hits)] == [recalled.id, other.id]
