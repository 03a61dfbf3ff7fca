"""Which hits answer a question (``retrieval/slots._by_question``), beyond the statements
that share its words: the top hits giving the kind of value asked for, a conversation's later
corrections, and, of the newest turn, the sentence that gives what the earlier values gave."""

from __future__ import annotations

from core.slots import Focus
from core.statements import ASSERT, REQUEST, Statement
from core.types import Hit
from retrieval.pairs import by_user

TOP_FOUND = 5  # the search's first hits taken as about the question (``found_for``)


def found_for(
    hits: list[Hit],
    said: dict[str, list[Statement]],
    relevant: dict[str, list[Statement]],
    focus: Focus,
    named: set[str | None],
) -> dict[str, list[Statement]]:
    """The statements the search itself ranked top for the question, in whatever words
    ("what time is our daily sync?" finds "standup is at 9:30"): a user's statement among the
    first ``TOP_FOUND`` hits that gives a time, a date or an amount when the question asks for
    one. Not for a question that asks for a name or does not say what kind: a conversation
    names many things."""
    if focus.families is None or "thing" in focus.families:
        return {}
    out: dict[str, list[Statement]] = {}
    for h in hits[:TOP_FOUND]:
        m = h.memory
        if m.id in relevant or m.earlier_until is not None or not by_user(m):
            continue
        if not (focus.names_in(m.indexed_text) or m.session_id in named):
            continue
        found = [s for s in said[m.id] if s.slotted and focus.answers(s)]
        if found:
            out[m.id] = found
    return out


def holding(
    current: Hit,
    relevant: dict[str, list[Statement]],
    said: dict[str, list[Statement]],
    focus: Focus,
) -> list[Statement]:
    """The statements of the current hit that hold the current value: its relevant ones;
    but when none of them gives a value of a kind the earlier hits gave and another sentence
    of the same turn said as so does, that one ("ingest prod moved again, it's in
    ap-southeast-2 now. third region this year": the region, not "this year")."""
    mine = [s for s in relevant[current.memory.id] if s.slotted]
    before = {
        v.family
        for i, statements in relevant.items()
        if i != current.memory.id
        for s in statements
        for v in focus.answers(s)
    }
    if not before or any(v.family in before for s in mine for v in focus.answers(s)):
        return mine
    others = [
        s
        for s in said[current.memory.id]
        if s not in mine
        and s.slotted
        and s.mood == ASSERT
        and any(v.family in before for v in focus.answers(s))
        and not names_other(s, focus)
    ]
    return others or mine


def follow_ups(
    hits: list[Hit],
    said: dict[str, list[Statement]],
    relevant: dict[str, list[Statement]],
    focus: Focus,
) -> dict[str, list[Statement]]:
    """A conversation's later corrections, after the user spoke of the question's topic in it:
    "How about Saturday instead?" after "I'd like a table at Luigi's on Friday" answers
    "which day is the table booked for?" too, though it names no table. Only the user's, of the same
    session, later than a relevant statement of it, naming no one the question does not."""
    began: dict[str, float] = {}
    for h in hits:
        m = h.memory
        if m.id in relevant and m.session_id is not None and by_user(m):
            began[m.session_id] = min(began.get(m.session_id, m.valid_from), m.valid_from)
    out: dict[str, list[Statement]] = {}
    for h in hits:
        m = h.memory
        if m.id in relevant or m.earlier_until is not None or not by_user(m):
            continue
        if m.session_id not in began or m.valid_from <= began[m.session_id]:
            continue
        found = [
            s
            for s in said[m.id]
            if s.slotted
            and s.mood in (REQUEST, ASSERT)
            and s.correction
            and focus.answers(s)
            and not names_other(s, focus)
        ]
        if found:
            out[m.id] = found
    return out


def names_other(s: Statement, focus: Focus) -> bool:
    """Whether the statement's subject names someone or something the question does not
    ("Anna's number is ..." for a question about Tom's)."""
    asked = {n.lower() for n in focus.names}
    return any(v.norm not in asked for v in s.named)
