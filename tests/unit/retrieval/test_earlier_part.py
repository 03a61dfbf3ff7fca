"""A memory that says several values, one of which a later statement replaced: it goes after
the current value, and only the part that says the earlier value is marked earlier
(``Memory.earlier_part``); the rest still holds."""

from __future__ import annotations

from typing import Any

from core.slots import Focus
from core.types import Hit, MemoryType
from retrieval.formatting import memory_line
from retrieval.pairs import statements_of
from retrieval.slots import _by_question
from tests.memories import a_memory, ranked, said

DAY = 86_400.0
JOB = (
    "new job details so you have them: I start at Vantage Labs on March 3, my manager is "
    "Priyanka Rao, and the office is in the Harbor building, floor 6"
)


def test_only_the_replaced_part_of_a_sentence_of_several_values_is_earlier(nlp: Any) -> None:
    turn = said(nlp, JOB, 10 * DAY)
    moved = said(nlp, "they moved our whole team up to floor 11, the view is ridiculous", 60 * DAY)
    hits = ranked(turn, moved)

    out = _by_question(hits, Focus.of("which floor is my desk on?"), False)

    order = [h.memory.id for h in out]
    assert order.index(moved.id) < order.index(turn.id)
    earlier = next(h.memory for h in out if h.memory.id == turn.id)
    assert earlier.earlier_until == moved.valid_from and earlier.earlier_part is not None
    line = memory_line(earlier)
    assert line.startswith("- [episodic, ") and "Priyanka Rao" in line
    assert "floor 6 [earlier, until 1970-03-02]" in line


def test_a_memory_that_says_only_the_earlier_value_is_earlier_whole(nlp: Any) -> None:
    old = said(nlp, "the office is on floor 6", 10 * DAY)
    new = said(nlp, "they moved our whole team up to floor 11", 60 * DAY)
    out = _by_question(
        ranked(old, new),
        Focus.of("which floor is my desk on?"),
        False,
    )
    assert [h.memory.id for h in out] == [new.id, old.id]
    assert out[1].memory.earlier_part is None
    assert memory_line(out[1].memory).startswith("- earlier: the office is on floor 6 (until")


def test_an_assistant_value_no_user_gave_is_not_the_current_one(nlp: Any) -> None:
    """The assistant's sum ("that puts the standup's end at 10:00") is no later standup time:
    the user's time stays the value. Its restatement of the user's new time counts."""
    user = said(nlp, "the standup is at 9:30 every day", 10 * DAY)
    summed = said(nlp, "So the standup ends at 10:00 every day.", 20 * DAY, source="turn:assistant")
    focus = Focus.of("what time is the standup?")
    out = _by_question([Hit(memory=user, score=1.0), Hit(memory=summed, score=0.9)], focus, False)
    assert all(h.memory.earlier_until is None for h in out)

    moved = said(nlp, "oh they moved it, it's 9:45 now", 30 * DAY)
    echo = said(
        nlp, "Got it, the standup is at 9:45 every day.", 30 * DAY + 60, source="turn:assistant"
    )
    hits = ranked(user, echo, moved)
    out = _by_question(hits, focus, False)
    assert out[0].memory.id == echo.id
    assert next(h for h in out if h.memory.id == user.id).memory.earlier_until is not None


def test_a_fact_that_is_its_whole_turn_reads_with_the_turns_statements(nlp: Any) -> None:
    """The rules' fact of a sentence of several values has no statement of its own (no one
    slot it stands for); read beside its turn, it takes the turn's, so its replaced part is
    marked too. A fact that is one sentence of a longer turn takes the statements of its
    part only (read from the whole turn: a pronoun there stands for whom it names)."""
    from retrieval.pairs import with_sentence_statements

    turn = said(nlp, JOB, 10 * DAY)
    fact = a_memory(
        "New job" + JOB[len("new job") :], MemoryType.FACT, 10 * DAY, source=f"rule:fact:{turn.id}"
    )
    moved = said(nlp, "they moved our whole team up to floor 11, the view is ridiculous", 60 * DAY)
    hits = with_sentence_statements([Hit(memory=m, score=1.0) for m in (fact, moved, turn)])
    assert len(hits[0].memory.statements) >= 2
    out = _by_question(hits, Focus.of("which floor is my desk on?"), False)
    earlier = next(h.memory for h in out if h.memory.id == fact.id)
    assert "floor 6 [earlier, until" in memory_line(earlier)

    longer = said(nlp, "Northwind is signing. " + JOB, 10 * DAY)
    part = a_memory(
        "New job" + JOB[len("new job") :],
        MemoryType.FACT,
        10 * DAY,
        source=f"rule:fact:{longer.id}",
    )
    kept = with_sentence_statements([Hit(memory=m, score=1.0) for m in (part, longer)])
    values = [v.text for s in statements_of(kept[0].memory) for v in s.values]
    assert "Vantage Labs" in values and "Northwind" not in values


SAID = 1674054000.0  # Wednesday 18 January 2023, 15:00 UTC


def test_a_context_line_dates_what_was_said_by_when_it_was_said() -> None:
    said = a_memory("I went to the support group yesterday", at=SAID)
    assert memory_line(said).endswith("support group yesterday [2023-01-17]")
    later = a_memory("I went to the support group yesterday", at=SAID + 7 * 86_400)
    assert memory_line(later).endswith("yesterday [2023-01-24]")
    document = a_memory("Released last week.", MemoryType.DOCUMENT, at=SAID)
    assert memory_line(document).endswith("Released last week.")  # written when? unknown


def test_a_later_correction_in_the_conversation_answers_what_it_spoke_of(nlp: Any) -> None:
    """ "how about Saturday instead?" names no table, but it corrects the conversation that
    asked for one: it holds the current day, and the Friday is earlier. The same words in
    another conversation are not about that table."""
    asked = said(nlp, "I'd like a table at Luigi's on Friday.", DAY, session_id="s1")
    fixed = said(nlp, "Actually, how about Saturday instead?", DAY + 60, session_id="s1")
    focus = Focus.of("Which day is the table at Luigi's booked for?")
    out = _by_question([Hit(memory=asked, score=0.9), Hit(memory=fixed, score=0.5)], focus, False)
    assert [h.memory.id for h in out] == [fixed.id, asked.id]
    assert out[1].memory.earlier_until == fixed.valid_from
    elsewhere = fixed.model_copy(update={"session_id": "s2"})
    hits = [Hit(memory=asked, score=0.9), Hit(memory=elsewhere, score=0.5)]
    assert all(h.memory.earlier_until is None for h in _by_question(hits, focus, False))


def test_the_current_value_is_the_sentence_giving_what_the_earlier_ones_gave(nlp: Any) -> None:
    """Of the newest turn, only "third region this year" is about the question by its words,
    and it gives a date; the region that replaces us-east-1 is said in the turn's other
    sentence, and that one holds the current value: us-east-1 is the earlier one."""
    old = said(nlp, "prod for the ingest pipeline lives in us-east-1. keep that in mind", DAY)
    new = said(
        nlp,
        "new APAC customer is the main user so ingest prod moved again, it's in ap-southeast-2"
        " now. third region this year",
        60 * DAY,
    )
    focus = Focus.of("what region should the terraform for the ingest pipeline target?")
    out = _by_question([Hit(memory=old, score=0.9), Hit(memory=new, score=0.5)], focus, False)
    assert [h.memory.id for h in out] == [new.id, old.id]
    assert out[1].memory.earlier_until == new.valid_from
