"""A conversation of requests: what the user asks for last leads, when no value was said as so
(``retrieval/answers.latest_asked``)."""

from __future__ import annotations

from typing import Any

from core.slots import Focus
from retrieval.answers import latest_asked
from tests.memories import ranked, said

MINUTE = 60.0


def test_the_last_request_of_a_kind_leads(nlp: Any) -> None:
    first = said(nlp, "What is the weather forecast on March 4th in Alamo?", 0, session_id="s")
    reply = said(
        nlp, "A 24 percent chance of showers.", MINUTE, session_id="s", source="turn:assistant"
    )
    later = said(nlp, "What is the forecast the 1st of March?", 2 * MINUTE, session_id="s")

    out = latest_asked(ranked(first, reply, later), Focus.of("What is the date for the weather?"))

    assert [h.memory.id for h in out] == [later.id, reply.id, first.id]
    assert all(h.memory.earlier_until is None for h in out)  # a question was never a value


def test_a_question_never_leads_over_a_value_said_as_so(nlp: Any) -> None:
    told = said(nlp, "The launch is on the 10th.", 0, session_id="s")
    asked = said(nlp, "Is the launch on the 12th?", MINUTE, session_id="s")
    hits = ranked(told, asked)

    assert latest_asked(hits, Focus.of("When is the launch?")) == hits


def test_requests_of_other_conversations_keep_their_places(nlp: Any) -> None:
    one = said(nlp, "Can you book a table for 4 people?", 0, session_id="a")
    other = said(nlp, "Can you book a table for 6 people?", MINUTE, session_id="b")
    hits = ranked(one, other)

    assert latest_asked(hits, Focus.of("How many people is the table for?")) == hits
    # a question for a name is no conversation of requests of one kind
    assert latest_asked(hits, Focus.of("Who is the table for?")) == hits
