"""A newer value said in words of its own: the read path's checks of what the write path
missed, when the question's words do not find it (``retrieval/slots._first_found``,
``retrieval/pairs.with_sentence_statements``)."""

from __future__ import annotations

from typing import Any

from core.slots import Focus
from core.types import MemoryType
from retrieval.closeness import About
from retrieval.pairs import by_user, statements_of, with_sentence_statements
from retrieval.slots import _by_question
from tests.memories import a_memory, ranked, said

DAY = 86_400.0
OLD = "Rachel runs the Beacon rollout, she wants the notes every monday"
QUESTION = Focus.of("who gets my weekly update on the rollout?")


def test_a_newer_value_said_as_a_change_leads_whatever_its_words(nlp: Any) -> None:
    old = said(nlp, OLD, 10 * DAY)
    text = "reorg news: Omar is running point on beacon from here on, send him the monday notes"
    new = said(nlp, text, 40 * DAY)
    # the search found it among its first hits, about as close to the question as the old one
    close = About(first=frozenset(s.text for s in statements_of(new)))

    out = _by_question(ranked(old, new), QUESTION, False, close=close)

    assert [h.memory.id for h in out] == [new.id, old.id]
    assert out[1].memory.earlier_until == new.valid_from


def test_a_newer_value_not_said_as_a_change_does_not_lead(nlp: Any) -> None:
    """Without the question's words and without saying it changes anything, a newer value
    may be another thing's (a colleague's project, a plan): the order stays."""
    old = said(nlp, OLD, 10 * DAY)
    new = said(
        nlp, "Omar is running point on the Harbor launch, send him the monday notes", 40 * DAY
    )
    close = About(first=frozenset(s.text for s in statements_of(new)))

    out = _by_question(ranked(old, new), QUESTION, False, close=close)

    assert [h.memory.id for h in out] == [old.id, new.id]
    assert all(h.memory.earlier_until is None for h in out)


def test_what_the_rules_drew_from_a_turn_reads_with_its_statements(nlp: Any) -> None:
    """A preference the rules drew from a whole turn holds no statements of its own: it
    reads with the turn's, is the user's, and its replaced value is marked earlier."""
    turn = said(nlp, "so i'm on a 50mg dose of sertraline each morning", 10 * DAY)
    drawn = a_memory(
        "So i'm on a 50mg dose of sertraline each morning",
        MemoryType.PREFERENCE,
        10 * DAY,
        source=f"rule:preference:{turn.id}",
    )
    new = said(nlp, "the gp bumped my dose up to 100mg as of this week", 40 * DAY)
    assert by_user(drawn) and not statements_of(drawn)

    hits = with_sentence_statements(ranked(new, drawn, turn))

    assert [v.text for s in statements_of(hits[1].memory) for v in s.values][:1] == ["50"]
    out = _by_question(hits, Focus.of("what dose am i on?"), False)
    earlier = {h.memory.id for h in out if h.memory.earlier_until is not None}
    assert earlier == {drawn.id, turn.id}
    assert out[0].memory.id == new.id


def test_an_older_value_in_words_of_its_own_is_marked_earlier(nlp: Any) -> None:
    """Not said as a change, a value the search ranked first in other words can still be the
    one a newer statement replaced: after the current value, marked earlier."""
    old = said(nlp, "Rachel runs the Beacon project, she wants the notes every monday", 10 * DAY)
    new = said(nlp, "Omar gets my weekly update on the rollout, every monday", 40 * DAY)
    close = About(first=frozenset(s.text for s in statements_of(old)))

    out = _by_question(ranked(old, new), QUESTION, False, close=close)

    assert [h.memory.id for h in out] == [new.id, old.id]
    assert out[1].memory.earlier_until == new.valid_from
    # without the search's word for it, the older line is no value of the question
    plain = _by_question(ranked(old, new), QUESTION, False)
    assert all(h.memory.earlier_until is None for h in plain)


def test_a_sentence_the_rules_kept_reads_with_its_part_of_the_turn(nlp: Any) -> None:
    """The rules keep "Switched to Verizon Fios last week" of a longer turn as an episode of
    its own: it reads with the statements of its part of the turn, not the others'."""
    turn = said(
        nlp, "Gave up on them. Switched to Verizon Fios last week, fibre. Night and day.", DAY
    )
    kept = a_memory(
        "Switched to Verizon Fios last week, fibre.",
        MemoryType.EPISODIC,
        DAY,
        source=f"rule:episode:{turn.id}",
    )

    (hit, _) = with_sentence_statements(ranked(kept, turn))

    values = [v.text for s in statements_of(hit.memory) for v in s.values]
    assert "Verizon Fios" in values and not any("Night" in v for v in values)
