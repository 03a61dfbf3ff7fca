"""In one conversation what was said last leads, unless a value was said as so
(``retrieval/answers.newest_said``)."""

from __future__ import annotations

from typing import Any

from core.slots import Focus
from core.types import Hit
from retrieval.answers import newest_said
from retrieval.pairs import earlier
from tests.memories import ranked, said

MINUTE = 60.0


def ids(hits: list[Hit]) -> list[str]:
    return [h.memory.id for h in hits]


def test_the_last_request_of_a_conversation_leads(nlp: Any) -> None:
    first = said(nlp, "Find something in Redwood City.", 0, session_id="s")
    offer = said(
        nlp,
        "How about John Bentley's Restaurant in Redwood City?",
        MINUTE,
        session_id="s",
        source="turn:assistant",
    )
    later = said(nlp, "Can you find some alternatives in Los Gatos?", 2 * MINUTE, session_id="s")

    out = newest_said(
        ranked(offer, first, later), Focus.of("What is the city where the restaurant is located?")
    )

    # the user's requests newest first, and the assistant's offer after them: it moves up past
    # nothing (nor does a question, a plan or someone's view)
    assert ids(out) == [later.id, first.id, offer.id]
    assert all(h.memory.earlier_until is None for h in out)  # a request was never a value


def test_a_value_said_as_so_is_never_passed(nlp: Any) -> None:
    told = said(nlp, "The launch is on the 10th.", 0, session_id="s")
    asked = said(nlp, "Is the launch on the 12th?", MINUTE, session_id="s")
    offer = said(
        nlp, "Shall I move it to the 14th?", 2 * MINUTE, session_id="s", source="turn:assistant"
    )
    hits = ranked(told, asked, offer)

    for question in ("When is the launch?", "What about the launch?"):
        out = newest_said(hits, Focus.of(question))
        assert out[0].memory.id == told.id
        assert all(h.memory.earlier_until is None for h in out)


def test_lines_of_other_conversations_keep_their_places(nlp: Any) -> None:
    one = said(nlp, "Can you book a table for 4 people?", 0, session_id="a")
    other = said(nlp, "Can you book a table for 6 people?", MINUTE, session_id="b")
    hits = ranked(one, other)

    assert newest_said(hits, Focus.of("How many people is the table for?")) == hits


def test_a_line_giving_the_kind_asked_passes_the_lines_that_give_none(nlp: Any) -> None:
    asked = said(nlp, "What will the weather be like on March 2nd?", 0, session_id="s")
    city = said(nlp, "I want the weather of Nairobi.", MINUTE, session_id="s")
    later = said(nlp, "Now I want the forecast for the 12th of March.", 2 * MINUTE, session_id="s")
    chatter = said(nlp, "What's the wind going to be like?", 3 * MINUTE, session_id="s")

    out = newest_said(
        ranked(city, asked, chatter, later), Focus.of("What is the date for the weather?")
    )

    # the lines that give a date go above those that give none, the newest request first;
    # the city and the wind give no date and move up past nothing
    assert ids(out) == [later.id, asked.id, city.id, chatter.id]


def test_a_line_moves_with_the_earlier_values_labelled_after_it(nlp: Any) -> None:
    first = said(nlp, "I'd like a psychologist please.", 0, session_id="s")
    old = said(nlp, "I need a therapist in Napa.", MINUTE, session_id="s")
    later = said(nlp, "Please find me a family counselor this time.", 2 * MINUTE, session_id="s")
    hits = ranked(first, later)
    hits.insert(1, earlier(ranked(old)[0], 2 * MINUTE))

    out = newest_said(hits, Focus.of("What is the type of the therapist?"))

    assert ids(out) == [later.id, first.id, old.id]  # the labelled line stays after its line


def test_a_question_that_names_someone_reads_only_lines_that_name_them(nlp: Any) -> None:
    anna = said(nlp, "Can you text Anna at 555-0148?", 0, session_id="s")
    tom = said(nlp, "And can you text Tom at 555-0199?", MINUTE, session_id="s")
    hits = ranked(anna, tom)

    assert newest_said(hits, Focus.of("What is Anna's number?")) == hits


def test_a_question_a_supposition_or_a_suggestion_never_moves_up(nlp: Any) -> None:
    request = said(nlp, "Keep the social budget at 18k please.", 0, session_id="s")
    suggestion = said(nlp, "I'd suggest raising it to 25k for reach.", MINUTE, session_id="s",
                      source="turn:assistant")  # fmt: skip
    supposed = said(nlp, "What if we went to 30k?", 2 * MINUTE, session_id="s")
    hits = ranked(request, suggestion, supposed)

    assert newest_said(hits, Focus.of("What is the social budget?")) == hits
    assert newest_said(hits, Focus.of("How much is the social budget?")) == hits


def test_a_question_asking_with_the_date_asked_passes_an_earlier_request(nlp: Any) -> None:
    """SGD: "what will it be like on the 13th?" after "I would like to check what the weather
    there will be on the 2nd": the date the question gives is the request's new one; a question
    giving no date (nor one not asked) does not pass the request."""
    asked = said(
        nlp, "I would like to check what the weather there will be on the 2nd.", 0, session_id="s"
    )
    again = said(nlp, "Okay, what will it be like on the 13th?", MINUTE, session_id="s")
    idle = said(nlp, "What will the wind be like in Tomales?", 2 * MINUTE, session_id="s")

    out = newest_said(ranked(asked, again), Focus.of("What is the date for the weather?"))
    assert ids(out) == [again.id, asked.id]
    out = newest_said(ranked(asked, idle), Focus.of("What is the city for the weather?"))
    assert ids(out) == [asked.id, idle.id]


def test_a_line_only_faintly_like_the_question_stays_where_it_is(nlp: Any) -> None:
    oven = said(nlp, "If the oven plays up, call Dimitri.", 0, session_id="s")
    flour = said(nlp, "Our flour comes from Holloway Mill now.", MINUTE, session_id="s")
    hits = ranked(oven, flour)
    hits[1] = hits[1].model_copy(update={"signals": {"similarity": 0.1}})
    focus = Focus.of("who should I ask about the oven?")

    assert newest_said(hits, focus, faint=0.25) == hits
    assert ids(newest_said(hits, focus)) == [flour.id, oven.id]  # with no floor it would lead


def test_a_later_correction_passes_a_line_said_as_so_and_makes_its_value_earlier(
    nlp: Any,
) -> None:
    """ "new client set up: Northwind Joinery" is said as so, which nothing else passes; the
    user's "argh sorry, it's ap@..." corrects the address the line gave, so it passes it and
    that part of the line is the earlier value."""
    setup = said(
        nlp,
        "new client set up: Northwind Joinery. send their invoices to "
        "accounts@northwind-joinery.co.uk, net 30 terms",
        0,
        session_id="s",
    )
    fix = said(
        nlp,
        "argh sorry, it's ap@northwind-joinery.co.uk — the other one bounces apparently",
        2 * MINUTE,
        session_id="s",
    )

    out = newest_said(ranked(setup, fix), Focus.of("where do Northwind's bills go?"))

    assert ids(out) == [fix.id, setup.id]
    marked = out[1].memory
    assert marked.earlier_until == fix.valid_from and marked.earlier_part is not None
    start, end = marked.earlier_part
    assert "accounts@" in marked.content[start:end]
    assert "Northwind Joinery." not in marked.content[start:end]


def test_a_correction_that_says_the_line_s_value_again_makes_nothing_earlier(nlp: Any) -> None:
    """ "terminal 2! not 3" fixes the assistant's echo, not the user's own "terminal 2"."""
    told = said(nlp, "my mom lands at terminal 2 at 5:50pm on sunday", 0, session_id="s")
    fix = said(nlp, "terminal 2! not 3", 2 * MINUTE, session_id="s")

    out = newest_said(ranked(told, fix), Focus.of("which terminal am I picking my mother up from?"))

    assert all(h.memory.earlier_until is None for h in out)


def test_a_correction_faintly_like_the_question_still_passes_what_it_fixes(nlp: Any) -> None:
    """ "ah no, it's Larch Avenue" is barely like "where do the fabric samples need to be
    shipped?", but it corrects the address the session gave: it leads, answering, and the
    address line and the assistant's echo of it are earlier."""
    note = said(
        nlp,
        "please note the shipping address for the fabric samples: 221 Larch Street, Portland",
        0,
        session_id="s",
    )
    echo = said(
        nlp, "Saved: 221 Larch Street, Portland.", MINUTE, session_id="s", source="turn:assistant"
    )
    fix = said(nlp, "ah no, it's Larch Avenue.", 2 * MINUTE, session_id="s")
    hits = ranked(note, echo, fix)
    hits[2] = hits[2].model_copy(update={"signals": {"similarity": 0.2}})

    out = newest_said(hits, Focus.of("where do the fabric samples need to be shipped?"), 0.35)

    assert ids(out) == [fix.id, note.id, echo.id]
    assert out[0].signals.get("answers") == 1.0
    assert [h.memory.earlier_until for h in out[1:]] == [fix.valid_from, fix.valid_from]


def test_a_correction_fixes_the_line_it_answers_not_the_one_before_it(nlp: Any) -> None:
    """ "no you flipped it, ..." answers the assistant's "Okay, 4,800" (already labelled
    earlier as misheard): the user's own "quoted 8,400" is not what it fixes."""
    quoted = said(nlp, "the contractor quoted 8,400 for the new deck", 0, session_id="s")
    flipped = said(
        nlp, "Okay, 4,800 for the deck.", MINUTE, session_id="s", source="turn:assistant"
    )
    fix = said(nlp, "no you flipped it, eight thousand four hundred", 2 * MINUTE, session_id="s")
    hits = [*ranked(quoted, fix), earlier(ranked(flipped)[0], fix.valid_from)]

    out = newest_said(hits, Focus.of("what did the contractor quote for the deck?"))

    assert next(h for h in out if h.memory.id == quoted.id).memory.earlier_until is None
