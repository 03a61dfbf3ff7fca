"""The line holding a slot's current value, when its own words name the value it replaced
(``retrieval/stale.restating``, applied by ``retrieval/slots._by_question``): read as it is
written, the old name may come first, so the line says which is which."""

from __future__ import annotations

from typing import Any

from core.slots import Focus
from core.types import Memory
from retrieval.closeness import About
from retrieval.formatting import memory_line
from retrieval.pairs import statements_of
from retrieval.slots import _by_question
from retrieval.stale import restating
from tests.memories import ranked, said

DAY = 86_400.0
FLOUR = "Hi! I run a small bakery. Our flour all comes from Greenfield Mills, delivered Tuesdays."
MOVED = "Big change: Greenfield's prices went up 30% so we've moved to Harlow & Sons for flour."


def _values(m: Memory) -> list[Any]:
    return [v for s in statements_of(m) for v in s.values]


def test_a_change_that_names_the_old_value_first_says_which_is_current(nlp: Any) -> None:
    old = said(nlp, FLOUR, 10 * DAY)
    new = said(nlp, MOVED, 40 * DAY)

    out = _by_question(ranked(old, new), Focus.of("who do we buy our flour from?"), False)

    assert [h.memory.id for h in out] == [new.id, old.id]
    assert out[1].memory.earlier_until == new.valid_from
    line = memory_line(out[0].memory)
    # the current value is said before the old one, which is labelled
    assert "now: Harlow & Sons; earlier: Greenfield Mills]" in line, line
    assert line.index("Harlow & Sons") < line.lower().index("greenfield")


def test_the_name_a_change_only_mentions_is_not_taken_for_the_current_value(nlp: Any) -> None:
    """Without the change's own value read first, "Greenfield" (which the change only names)
    agreed with the old "Greenfield Mills" and the old line was left unlabelled."""
    old = said(nlp, FLOUR, 10 * DAY)
    new = said(nlp, MOVED, 40 * DAY)

    # by meaning, "Greenfield's prices went up 30%" is about the question too
    close = About(texts=frozenset(s.text for m in (old, new) for s in statements_of(m)))

    out = _by_question(
        ranked(new, old), Focus.of("who do we buy our flour from?"), False, close=close
    )

    assert out[1].memory.id == old.id and out[1].memory.earlier_until is not None


def test_a_line_that_names_no_replaced_value_is_not_marked(nlp: Any) -> None:
    old = said(nlp, FLOUR, 10 * DAY)
    new = said(nlp, "we've moved to Harlow & Sons for flour from this week", 40 * DAY)

    out = _by_question(ranked(old, new), Focus.of("who do we buy our flour from?"), False)

    assert out[0].memory.id == new.id
    assert out[0].memory.now_value is None
    assert "now:" not in memory_line(out[0].memory)


def test_a_value_the_line_gives_itself_is_never_called_earlier(nlp: Any) -> None:
    """ "It's 12B. ... 12D is the unit next door": 12D is given by a sentence of the line, not
    named as a replaced value, whatever the read took for the current one."""
    line = said(nlp, "It's 12B. B for Bravo. 12D is the empty unit next door.", 10 * DAY)
    twelve_b, twelve_d = (v for v in _values(line) if v.text in ("12B", "12D"))

    assert restating(ranked(line)[0], [twelve_b], [twelve_d]).memory.now_value is None
    assert restating(ranked(line)[0], [twelve_d], [twelve_b]).memory.now_value is None


def test_a_question_is_never_marked_with_a_current_value(nlp: Any) -> None:
    """ "is lunch friday still at dishoom or did someone switch it to Flat Iron?": the value
    it asks about is not said as a change."""
    asked = said(nlp, "is lunch friday still at dishoom or did someone switch it to Flat Iron?", 0)
    old = said(nlp, "team lunch is friday at Dishoom Kings Cross", -DAY)
    flat_iron = [v for v in _values(asked) if v.text == "Flat Iron"]
    dishoom = [v for v in _values(old) if "Dishoom" in v.text]

    assert flat_iron and dishoom
    assert restating(ranked(asked)[0], dishoom, flat_iron).memory.now_value is None


def test_a_change_found_only_by_its_first_hits_marks_the_event_it_replaced(nlp: Any) -> None:
    """ "finally signed up at Ironclad Fitness" is told as an event: a later change that names
    it ("ironclad was always packed, cancelled it. joined PeakForm Studio instead") still
    makes it the earlier value."""
    old = said(nlp, "finally signed up at Ironclad Fitness on Delancey, $49/mo, no contract", 0)
    new = said(
        nlp,
        "ok so ironclad was always packed at 6pm, cancelled it. joined PeakForm Studio instead",
        40 * DAY,
    )
    texts = frozenset(s.text for m in (old, new) for s in statements_of(m))
    close = About(texts=texts, kin=texts)

    out = _by_question(
        ranked(old, new), Focus.of("which gym am I a member of?"), False, close=close
    )

    assert [h.memory.id for h in out] == [new.id, old.id]
    assert out[0].memory.now_value == "PeakForm Studio"
    assert out[0].memory.names_earlier == ("Ironclad Fitness",)


def test_a_line_with_no_value_of_the_current_kind_does_not_hold_it(nlp: Any) -> None:
    """ "Great goal for a first half!" gives a number, no finishing time: it does not hold the
    current value, so the lines ranked above the current one still move after it, and the
    time it names in passing ("Sub 2:10 is very doable") is marked earlier too."""
    signed = said(nlp, "signed up for the Bristol half in May. goal is sub 2:10", DAY)
    great = said(
        nlp,
        "Great goal for a first half! Sub 2:10 is very doable with 12 weeks of training.",
        DAY + 60,
        source="turn:assistant",
    )
    revised = said(nlp, "training is going way better, I'm revising the goal to sub 1:59", 30 * DAY)
    now = said(
        nlp, "tweaked my calf, lost two weeks. being realistic, aiming for sub 2:05 now", 60 * DAY
    )
    texts = frozenset(s.text for m in (signed, great, revised, now) for s in statements_of(m))

    out = _by_question(
        ranked(great, signed, revised, now),
        Focus.of("what finish time am I going for in the half?"),
        False,
        close=About(texts=texts),
    )

    assert out[0].memory.id == now.id
    assert {h.memory.id for h in out if h.memory.earlier_until is not None} == {
        signed.id,
        great.id,
        revised.id,
    }
