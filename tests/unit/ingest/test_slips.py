"""A value said again with a slip fixed, values the recognizer misreads, a correction
announced in a sentence of its own, and a value said as the subject of "is"."""

from __future__ import annotations

from typing import Any

import pytest

from core.statements import CODE, NAME, NUMBER, TIME, Statement, Value
from ingest.slots.analysis import statements
from retrieval.pairs import replaces


def value(text: str, kind: str) -> Value:
    return Value(text, kind, text.lower(), 0, len(text), -1, -1)


@pytest.mark.parametrize(
    ("new", "old", "slip"),
    [
        (value("555-0184", CODE), value("555-0148", CODE), True),  # two digits swapped
        (value("Catherine", NAME), value("Katherine", NAME), True),  # one letter other
        (value("KX7 2MR", CODE), value("KX7 2RM", CODE), True),
        (value("2292", NUMBER), value("spruce-2291", CODE), True),  # "it ends in 2292"
        (value("Mary", NAME), value("Mark", NAME), False),  # a short name: another name
        (value("555-0148", CODE), value("555-0148", CODE), False),  # the same value
        (value("555-9999", CODE), value("555-0148", CODE), False),  # another number
        (value("12", NUMBER), value("spruce-2291", CODE), False),  # too short to be its end
    ],
)
def test_a_slip_is_one_character_or_one_swap(new: Value, old: Value, slip: bool) -> None:
    assert new.misspells(old) is slip


def test_amounts_and_times_are_never_slips() -> None:
    assert not value("£1,350", "money").misspells(value("£1,250", "money"))
    assert not value("8:05", TIME).misspells(value("8:50", TIME))


@pytest.mark.parametrize(
    ("text", "kind", "said"),
    [
        ("my sister got a new number, it's 555-0148", CODE, "555-0148"),
        ("call me on 020-7946-0958 tomorrow", CODE, "020-7946-0958"),
        ("the password is gull-4417", CODE, "gull-4417"),
        ("we need 10-12 chairs", NUMBER, "10-12"),  # a range stays an amount
    ],
)
def test_phone_numbers_and_codes_are_codes(nlp: Any, text: str, kind: str, said: str) -> None:
    found = [v for s in statements(nlp(text)) for v in s.values]
    assert [(v.text, v.kind) for v in found if v.text == said] == [(said, kind)]


def test_a_fixed_slip_replaces_the_value_whatever_the_words(nlp: Any) -> None:
    fixed = statements(nlp("ugh i swapped the last two, its 555-2791"))
    echo = statements(nlp("Saved your brother's number as 555-2719."))
    other = statements(nlp("Saved your brother's number as 555-8830."))
    assert replaces(fixed, echo, slots=False)
    assert not replaces(fixed, other, slots=False)


def test_a_sentence_that_says_it_corrects_makes_the_next_one_a_correction(nlp: Any) -> None:
    said: list[Statement] = statements(
        nlp("wait sorry i misread the confirmation email. departure is 8:05")
    )
    assert said[-1].correction and [v.norm for v in said[-1].values] == ["08:05"]
    plain = statements(nlp("I read the confirmation email. departure is 8:05"))
    assert not plain[-1].correction


def test_a_value_said_as_the_subject_of_is_is_the_value(nlp: Any) -> None:
    (s,) = statements(nlp("£2,000 is the new approval limit"))
    assert [v.text for v in s.values] == ["£2,000"] and "limit" in s.subject


@pytest.mark.parametrize(
    ("text", "mood"),
    [
        ("At my old company the lead designer was Marco", "history"),
        ("in my previous flat the rent was 950 a month", "history"),
        ("the rent was 950 a month", "assert"),
        ("last week the standup was at 9", "assert"),
    ],
)
def test_a_value_said_of_a_place_or_time_that_is_over_is_history(
    nlp: Any, text: str, mood: str
) -> None:
    assert statements(nlp(text))[0].mood == mood


def test_a_name_said_as_our_role_is_the_value_of_the_role(nlp: Any) -> None:
    (ours,) = statements(nlp("Priya is our lead designer"))
    (theirs,) = statements(nlp("Our lead designer is Tom now"))
    assert [v.text for v in ours.values] == ["Priya"] and ours.subject == ("lead", "designer")
    assert theirs.subject == ours.subject
    (one,) = statements(nlp("Priya is a designer"))  # one of several: the name stays the subject
    assert one.subject == ("priya",)


@pytest.mark.parametrize(
    ("text", "slotted"),
    [
        ("finally finished upgrading the prod db to pg 15 over the weekend", True),
        ("Felix took over the sales team last week, so reviews are with Felix now", True),
        ("we went to Valencia", False),  # an event that changed nothing
    ],
)
def test_an_event_that_changed_a_value_holds_it(nlp: Any, text: str, slotted: bool) -> None:
    assert statements(nlp(text))[0].slotted is slotted
