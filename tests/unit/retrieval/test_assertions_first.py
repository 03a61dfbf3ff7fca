"""A hit that never said a value as so now (a plan, a supposition, a recollection of another
time) goes after the hit that states the value of its slot: one slot by the frame, or the same
subject as the parse read it ("at my old company the lead designer was Marco" after "Priya is
our lead designer"). A hit of another subject keeps its place."""

from __future__ import annotations

from typing import Any

import pytest

from core.settings import Settings
from core.types import Hit, Memory, MemoryType
from ingest.slots.analysis import statements
from retrieval.pairs import assertions_first
from tests.memories import a_memory

DAY = 86_400.0
PRIYA = "Priya is our lead designer, loop her in on anything UI related"
MARCO = "at my old company the lead designer was Marco and he would've hated this new layout lol"


@pytest.fixture(scope="module")
def nlp() -> Any:
    import spacy

    return spacy.load(Settings().resolution.spacy_model)


def said(nlp: Any, text: str, at: float) -> Memory:
    lines = tuple(s.dumps() for s in statements(nlp(text)))
    return a_memory(text, MemoryType.EPISODIC, at, statements=lines)


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
