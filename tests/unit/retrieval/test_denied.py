"""A line holding a value a later correction of the user says is not so is labelled earlier
(``retrieval/answers.denied``): the assistant's "your physio is Dr Eva Brennan" after the
user's "aoife, not eva", whoever said it, only before the correction and in its session. And
an assistant's line that gives a value the user gave otherwise just before and just after it
(``misheard``)."""

from __future__ import annotations

from typing import Any

from core.types import Hit, Memory
from ingest.slots.analysis import statements
from retrieval.answers import denied, misheard
from tests.memories import a_memory


def said(nlp: Any, text: str, at: float, role: str = "user", session: str = "s1") -> Memory:
    lines = tuple(s.dumps() for s in statements(nlp(text)))
    return a_memory(text, at=at, statements=lines, source=f"turn:{role}", session_id=session)


def test_a_line_a_later_correction_denies_is_labelled_earlier(nlp: Any) -> None:
    first = said(nlp, "my physio is Dr Aoife Brennan at the Riverside clinic", 0)
    echo = said(nlp, "Got it, your physio is Dr Eva Brennan at Riverside.", 1, "assistant")
    fix = said(nlp, "aoife, not eva 😅 it's irish", 2)
    elsewhere = said(nlp, "Dr Eva Brennan runs the pilates class.", 1, session="s2")
    later = said(nlp, "Eva Brennan is her receptionist.", 3)
    hits = [Hit(memory=m, score=1.0) for m in (first, echo, fix, elsewhere, later)]
    out = {h.memory.id: h.memory.earlier_until for h in denied(hits)}
    assert out[echo.id] == 2  # the wrong echo, until the correction
    assert out[first.id] is None and out[fix.id] is None
    assert out[elsewhere.id] is None  # another conversation
    assert out[later.id] is None  # said after the correction


def test_a_denied_number_is_only_itself(nlp: Any) -> None:
    booked = said(nlp, "Flight lands at 6:40, gate 3.", 0, "assistant")
    other = said(nlp, "The 6:14 train is cancelled.", 0)
    fix = said(nlp, "no, 6:14. not 6:40", 1)
    out = {
        h.memory.id: h.memory.earlier_until
        for h in denied([Hit(memory=m, score=1.0) for m in (booked, other, fix)])
    }
    assert out[booked.id] == 1
    assert out[other.id] is None  # holds the value the correction gives


def test_an_echo_the_user_answers_with_their_own_value_was_misheard(nlp: Any) -> None:
    asked = said(nlp, "Please use this address: Unit 12B, Foundry Court, Leeds LS9 8AG.", 0)
    echo = said(nlp, "I've noted Unit 12D, Foundry Court, Leeds LS9 8AG.", 60, "assistant")
    reply = said(nlp, "It's 12B. B for Bravo.", 120)
    agreed = said(nlp, "Sure, Unit 12D it is.", 60, "assistant", session="s2")
    hits = [Hit(memory=m, score=1.0) for m in (asked, echo, reply, agreed)]
    out = {h.memory.id: h.memory.earlier_until for h in misheard(hits)}
    assert out[echo.id] == 120  # until the user's reply
    assert out[asked.id] is None and out[reply.id] is None
    assert out[agreed.id] is None  # another conversation: nothing the user said around it
    # a day later is no reply to it
    late = said(nlp, "It's 12B. B for Bravo.", 86_400)
    out = {
        h.memory.id: h.memory.earlier_until
        for h in misheard([Hit(memory=m, score=1.0) for m in (asked, echo, late)])
    }
    assert out[echo.id] is None
