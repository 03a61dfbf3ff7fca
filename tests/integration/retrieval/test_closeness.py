"""Statements about a question in other words (``retrieval/closeness.py``), with the real
parse and the real embedder: the old and the new pharmacy count as about "which chemist",
a boiler booking of the same conversation does not."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import pytest

from core.slots import Focus
from core.statements import Statement
from core.types import Hit
from ingest.slots.analysis import statements
from retrieval.closeness import About, Similar, Similarities, close_to
from retrieval.slots import _by_question
from tests.memories import a_memory, said
from vectors.embedding.embedder import Embedder


def hit(text: str) -> Hit:
    return Hit(memory=a_memory(text), score=1.0)


def similarities(embedder: Embedder, question: str) -> Similar:
    """The read path's similarities (``Retriever._similar``), from the real embedder."""

    async def similar(texts: Sequence[str]) -> Similarities:
        q = await embedder.embed_query(question)
        vectors = [await embedder.embed_query(t) for t in texts]

        def dot(a: list[float], b: list[float]) -> float:
            return sum(x * y for x, y in zip(a, b, strict=True))

        return Similarities(
            [dot(q, v) for v in vectors], [[dot(v, w) for w in vectors] for v in vectors]
        )

    return similar


async def test_statements_about_the_question_in_other_words(nlp: Any, embedder: Embedder) -> None:
    said = {
        "new": "we've moved dad's meds over to Pillbox Pharmacy, they deliver.",
        "old": "His tablets come from the Lloyds pharmacy on the High Street.",
        "other": "The boiler service is booked with Hearth & Co on the 14th.",
    }
    hits = {k: hit(v) for k, v in said.items()}
    parsed: dict[str, list[Statement]] = {
        h.memory.id: statements(nlp(h.memory.content)) for h in hits.values()
    }
    question = "Which chemist handles my father's medication now?"
    focus = Focus.of(question)
    # none of them shares a word with the question: words alone find nothing
    assert not any(
        focus.relevant(s, h.memory.content) for h in hits.values() for s in parsed[h.memory.id]
    )

    similar = similarities(embedder, question)
    close = await close_to(list(hits.values()), parsed, focus, similar, lambda h: True)
    texts = {s.text for k in ("new", "old") for s in parsed[hits[k].memory.id] if s.slotted}
    assert len(texts) == 2 and close.texts >= texts  # both pharmacies
    assert not close.texts & {s.text for s in parsed[hits["other"].memory.id]}  # not the boiler
    # and with them, the question's slot has its two values
    assert all(
        focus.relevant(s, hits[k].memory.content, close=True)
        for k in ("new", "old")
        for s in parsed[hits[k].memory.id]
        if s.text in close.texts
    )


async def test_values_said_in_each_others_words_join_the_question(
    nlp: Any, embedder: Embedder
) -> None:
    """The question names only what the newest value says ("date night"); the two before it
    are about it through each other: Lucy's line is close to Rosa's by meaning, Maya's shares
    "sitter" with Lucy's. A dentist and a payroll clerk are about something else."""
    said = {
        "lucy": "Our babysitter is Lucy, she does tuesday and thursday evenings",
        "maya": "we've got a new sitter, Maya from two doors down, the kids adore her",
        "rosa": "grandma Rosa is watching the kids on our date nights from this month, "
        "she insisted",
        "dentist": "my dentist is Dr. Hale at the Bridge Street clinic",
        "payroll": "Tom from accounts is handling the payroll this month",
    }
    hits = {k: hit(v) for k, v in said.items()}
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in hits.values()}
    question = "who's minding the children on date night?"
    focus = Focus.of(question)

    similar = similarities(embedder, question)
    close = await close_to(list(hits.values()), parsed, focus, similar, lambda h: True)

    def of(key: str) -> set[str]:
        return {s.text for s in parsed[hits[key].memory.id]}

    assert all(close.texts & of(k) for k in ("lucy", "maya", "rosa"))
    assert not close.texts & (of("dentist") | of("payroll"))


async def test_a_question_about_a_past_time_follows_the_chain_forward(
    nlp: Any, embedder: Embedder
) -> None:
    """ "offsite destination" names only the first plan; a later "it's Porto now" under the
    heading "offsite update:" is its kin, and only a question about a past time (``as_of``)
    lets kinship reach forward to it: a context never makes a loosely linked value current."""
    first = hit("Planning the company offsite for 40 people - we've picked Lisbon, late May.")
    later = hit("offsite update: leadership wants somewhere cheaper, so it's Porto now.")
    later = Hit(
        memory=later.memory.model_copy(update={"valid_from": first.memory.valid_from + 86400}),
        score=0.9,
    )
    other = hit("budget is about 900 a head, flights not included")
    hits = [first, later, other]
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in hits}
    focus = Focus.of("offsite destination")
    similar = similarities(embedder, "offsite destination")
    porto = {s.text for s in parsed[later.memory.id]}

    past = await close_to(hits, parsed, focus, similar, lambda h: True, as_of=True)
    assert porto & past.kin and porto & past.texts
    assert not past.texts & {s.text for s in parsed[other.memory.id]}
    now_ = await close_to(hits, parsed, focus, similar, lambda h: True)
    assert not porto & now_.texts


async def test_a_later_change_that_says_what_it_changes_joins_the_question(
    nlp: Any, embedder: Embedder
) -> None:
    """The question names Poppy, whom only the first statement names; the later one says
    where it changes ("Marlowe Road", again) and that it changes ("instead"), so it is the
    same slot in a context too. A later statement that names nothing of the first is not."""
    first = hit("Poppy's school bus collects from the end of Marlowe Road at 7:45.")
    later = hit(
        "they've rerouted the bus, so from next week it comes to Marlowe Road at 8:10 instead"
    )
    other = hit("the swimming club moved the gala to 9:30 instead, so we'll be early")
    day = first.memory.valid_from
    later, other = (
        Hit(memory=h.memory.model_copy(update={"valid_from": day + 86400 * d}), score=0.9)
        for h, d in ((later, 30), (other, 31))
    )
    hits = [first, later, other]
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in hits}
    question = "what time does Poppy's bus come in the morning?"
    about = await close_to(
        hits, parsed, Focus.of(question), similarities(embedder, question), lambda h: True
    )

    def of(h: Hit) -> set[str]:
        return {s.text for s in parsed[h.memory.id] if s.values}

    assert of(later) & about.kin
    assert not of(other) & about.texts


def test_a_statement_found_by_kinship_need_not_name_what_the_question_names(nlp: Any) -> None:
    """Kin to a statement about Tom, "the number is ... now" counts for "Tom's number" even
    though it does not say Tom; "Anna's number is ..." never does: it names someone else."""
    day = 86400.0
    old = Hit(memory=a_memory("Tom's number is 07700 900123.", at=0.0), score=0.9)
    unnamed = Hit(memory=a_memory("the number is 07700 900777 now, he switched", at=day), score=0.8)
    anna = Hit(memory=a_memory("Anna's number is 07700 900999 now.", at=2 * day), score=0.7)
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in (old, unnamed, anna)}
    hits = [
        h.model_copy(update={"memory": h.memory.model_copy(update={"statements": tuple(
            s.dumps() for s in parsed[h.memory.id])})})
        for h in (old, unnamed, anna)
    ]  # fmt: skip
    focus = Focus.of("What's Tom's phone number?")

    def texts(h: Hit) -> frozenset[str]:
        return frozenset(s.text for s in parsed[h.memory.id])

    kin = texts(unnamed) | texts(anna)
    ordered = _by_question(hits, focus, False, None, About(kin, kin))
    labelled = {h.memory.content for h in ordered if h.memory.earlier_until is not None}
    assert labelled == {old.memory.content}  # the unnamed change replaced Tom's old number
    only_anna = _by_question(hits, focus, False, None, About(texts(anna), texts(anna)))
    assert all(h.memory.earlier_until is None for h in only_anna)  # Anna's is not Tom's


async def _later_joined(
    nlp: Any, embedder: Embedder, first: str, later: str, other: str, question: str
) -> tuple[set[str], set[str], About]:
    """The statements (with values) of a later change and of another later statement, days
    after ``first``, and what ``close_to`` finds about ``question`` among the three."""
    start = hit(first)
    day = start.memory.valid_from
    hits = [start] + [
        Hit(memory=a_memory(text, at=day + 86400 * d), score=0.9)
        for text, d in ((later, 30), (other, 31))
    ]
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in hits}
    about = await close_to(
        hits, parsed, Focus.of(question), similarities(embedder, question), lambda h: True
    )

    def of(h: Hit) -> set[str]:
        return {s.text for s in parsed[h.memory.id] if s.values}

    return of(hits[1]), of(hits[2]), about


@pytest.mark.parametrize(
    ("first", "later", "other", "question"),
    [
        # its subject is part of the earlier one's: it names no Mia, and the embedder rates it
        # far; a change of a subject of its own (the gala) is not the club's
        (
            "mia's after school club finishes at 5:15 on weekdays",
            "new term new timetable. the club now wraps up at quarter to six",
            "the swimming gala now starts at 9:30",
            "what time do I need to collect Mia from her club?",
        ),
        # its words name the earlier subject's head, though the parse takes "the boston folks"
        # for its subject; a change of something else (the gym) is not the standup's
        (
            "team rhythm: daily standup is at 9:30, retro every other friday",
            "moving standup to 10:15 starting monday so the boston folks can join",
            "the gym by the office now opens at 6",
            "what time is our daily sync?",
        ),
    ],
    ids=["subject-in-fewer-words", "words-name-the-subject"],
)
async def test_a_later_change_that_names_the_earlier_subject_joins_the_question(
    nlp: Any, embedder: Embedder, first: str, later: str, other: str, question: str
) -> None:
    """A later change that names what the earlier statement is about and gives a value of a
    kind it gave is the same slot (``closeness._narrowed``)."""
    changed, elsewhere, about = await _later_joined(nlp, embedder, first, later, other, question)
    assert changed & about.kin
    assert not elsewhere & about.texts


async def test_a_later_change_that_counts_the_same_things_again_joins_the_question(
    nlp: Any, embedder: Embedder
) -> None:
    """ "we're now at 55 guests" counts again what "... 40 guests, budget £800" counted: one
    slot, so the question about Dad's party has its two values though only the first names
    Dad. A later count of other things ("now at 12 tables") is not."""
    later, other, about = await _later_joined(
        nlp,
        embedder,
        "Planning Dad's 70th: Saturday the 12th, at Rosa's Cantina back room, 40 guests, budget"
        " £800, and it's a surprise",
        "Cousins from Cork are coming too, we're now at 55 guests",
        "the caterer is now at 12 tables",
        "how many people are coming to Dad's party?",
    )
    assert later & about.kin  # it need not name Dad
    assert not other & about.kin


async def test_the_search_first_hits_nearly_as_close_are_about_the_question(
    nlp: Any, embedder: Embedder
) -> None:
    """Omar's line shares no word with the question and is less close to it than Rachel's,
    but near enough among the search's first hits (``About.first``); said as a change, it
    holds the current value. A boiler booking below the first hits is not (the embedder finds
    it about as close to the question as Omar's line: rank and a change said decide)."""
    day = 86_400.0
    old = Hit(
        memory=said(nlp, "Rachel runs the Beacon rollout, she wants the notes every monday", day),
        score=1.0,
    )
    text = "reorg news: Omar is running point on beacon from here on, send him the monday notes"
    new = Hit(memory=said(nlp, text, 30 * day), score=0.9)
    other = Hit(
        memory=said(nlp, "The boiler service is booked with Hearth & Co on the 14th.", 31 * day),
        score=0.5,
    )
    chatter = [hit("Sure, happy to help with that."), hit("ok thanks")]
    hits = [old, new, *chatter, other]
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in hits}
    question = "who gets my weekly update on the rollout?"
    focus = Focus.of(question)
    assert not any(focus.relevant(s, new.memory.content) for s in parsed[new.memory.id])

    close = await close_to(hits, parsed, focus, similarities(embedder, question), lambda h: True)

    assert close.first & {s.text for s in parsed[new.memory.id]}
    assert not close.first & {s.text for s in parsed[other.memory.id]}
    out = _by_question(hits, focus, False, close=close)
    assert out[0].memory.id == new.memory.id
    assert next(h for h in out if h.memory.id == old.memory.id).memory.earlier_until is not None


async def read_two(
    nlp: Any, embedder: Embedder, question: str, old: str, new: str, days: float, score: float
) -> tuple[list[Hit], Hit, Hit]:
    """``old`` said on day 1 and ``new`` ``days`` later (ranked ``score``), read for
    ``question`` as the read path does: closeness with the real embedder, then the slot."""
    day = 86_400.0
    first = Hit(memory=said(nlp, old, day), score=1.0)
    later = Hit(memory=said(nlp, new, days * day), score=score)
    focus = Focus.of(question)
    parsed = {h.memory.id: statements(nlp(h.memory.content)) for h in (first, later)}
    similar = similarities(embedder, question)
    close = await close_to([first, later], parsed, focus, similar, lambda h: True)
    return _by_question([first, later], focus, False, close=close), first, later


async def test_a_change_that_names_an_event_it_replaces_marks_it_earlier(
    nlp: Any, embedder: Embedder
) -> None:
    """ "finally signed up at Ironclad Fitness" is told as an event, and the later change says
    neither "gym" nor anything close to the question: the event is about the question by
    meaning, and the change that names it ("ironclad was always packed ... joined PeakForm
    Studio instead") is surely its slot, so the old gym goes after the new one, earlier."""
    out, old, new = await read_two(
        nlp,
        embedder,
        "which gym am I a member of right now?",
        "finally signed up at Ironclad Fitness on Delancey, $49/mo, no contract",
        "ok so ironclad was always packed at 6pm, cancelled it. joined PeakForm Studio "
        "instead, it's a 3 min walk from work",
        40,
        0.99,
    )

    assert [h.memory.id for h in out] == [new.memory.id, old.memory.id]
    assert out[1].memory.earlier_until == new.memory.valid_from
    assert (out[0].memory.now_value, out[0].memory.names_earlier) == (
        "PeakForm Studio",
        ("Ironclad Fitness",),
    )


async def test_a_change_about_the_question_reaches_back_to_what_it_names(
    nlp: Any, embedder: Embedder
) -> None:
    """The new meeting place is the statement about the question; the old one ("we meet ...
    at Hannah's place") is not close to it by meaning and shares no word with it, but the
    change names it ("Hannah's kitchen is getting ripped out"): surely one slot, whichever of
    the two was found about the question first."""
    out, _, new = await read_two(
        nlp,
        embedder,
        "Where does the reading group get together these days?",
        "Our book club is reading The Remains of the Day next. we meet the first Thursday of "
        "the month at Hannah's place, usually 7ish.",
        "Book club's got a new home - the back room of the Crooked Spoon cafe from now on, "
        "Hannah's kitchen is getting ripped out for months.",
        45,
        0.99,
    )

    assert out[0].memory.id == new.memory.id
    assert out[1].memory.earlier_until == new.memory.valid_from


async def test_a_change_of_one_fact_of_many_marks_that_fact_earlier(
    nlp: Any, embedder: Embedder
) -> None:
    """ "the band is The Velvet Tones" is one fact of a line of five, found first by the search;
    the change says "band" only in the sentence before its own ("we had to let the band go
    ... the Harbour Lights are playing instead"), and is not close to the question by
    meaning. Surely one slot with what the search found first, it leads, and the old line's
    band, not its venue, is the part marked earlier."""
    out, _, new = await read_two(
        nlp,
        embedder,
        "who's providing the live music at the wedding?",
        "Wedding facts so i stop repeating myself: venue is Hengrave Hall, date is 20 September,"
        " about 120 guests, the band is The Velvet Tones and the cake is from Crumbs & Doilies",
        "drama!! we had to let the band go, they double booked. the Harbour Lights are playing "
        "instead, they were amazing at my cousin's do",
        60,
        0.5,
    )

    assert out[0].memory.id == new.memory.id
    marked = out[1].memory
    assert marked.earlier_until == new.memory.valid_from and marked.earlier_part is not None
    start, end = marked.earlier_part
    assert "The Velvet Tones" in marked.content[start:end]
    assert "Hengrave Hall" not in marked.content[start:end]
