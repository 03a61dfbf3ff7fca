"""Values read as people say them (``ingest/slots/values.py``, ``core/statements.py``):
times and amounts in words, days of the week however written, a list of facts before its
last item, and the kind of value a question asks for."""

from __future__ import annotations

from typing import Any

import pytest

from core.slots import Focus, corrects, stem, substitute
from core.statements import Statement, Value, normal
from ingest.slots.analysis import statements


def said(nlp: Any, text: str) -> Statement:
    (statement,) = statements(nlp(text))
    return statement


@pytest.mark.parametrize(
    ("text", "clock"),
    [("the club closes at half seven now", "07:30"), ("pickup is at half 3", "03:30")],
)
def test_half_an_hour_past_is_a_time(nlp: Any, text: str, clock: str) -> None:
    # British English: "half seven" is half past seven
    assert [(v.kind, v.norm) for v in said(nlp, text).values] == [("time", clock)]


@pytest.mark.parametrize(
    ("text", "norm"),
    [
        ("we're down to ninety-five people", "95"),
        ("give him half a tablet twice a day", "0.5"),
        ("we have a hundred and twenty guests", "120"),
    ],
)
def test_amounts_in_words_are_their_number(nlp: Any, text: str, norm: str) -> None:
    assert [v.norm for v in said(nlp, text).values if v.kind == "number"] == [norm]


def test_a_fraction_with_its_article_is_written_out_as_said(nlp: Any) -> None:
    # a correction written over "one tablet" reads "half a tablet", not "half tablet"
    old = said(nlp, "Got it, one tablet twice a day with food.")
    new = next(s for s in statements(nlp("no!! half a tablet.")) if s.values)
    (half,) = new.values
    assert (half.text, half.norm) == ("half a", "0.5")
    (one,) = [v for v in old.values if v.norm == "1"]
    assert substitute(old.text, [(one, half)], old.start).startswith("Got it, half a tablet")


def test_a_list_of_facts_before_its_last_item_is_told_not_the_subject(nlp: Any) -> None:
    # the parse hangs the list on the last item's verb; the count and the date are values
    facts = said(nlp, "Larchfield Barn, Saturday 14 June, 120 guests, and the band is The Owls.")
    assert facts.subject == ("band",)
    assert {v.norm for v in facts.values} >= {"120", "saturday 14 june"}
    # a list of one kind is the subject as a whole
    leads = said(nlp, "Priya, Tom, and Ana are the leads.")
    assert set(leads.subject) == {"priya", "tom", "ana"}


@pytest.mark.parametrize(
    ("text", "day"),
    [
        ("the twins have swim lessons tuesdays at 5", "tuesday"),
        ("i go to the gym thurs after work", "thursday"),
        ("Meet on Sat at 10", "saturday"),
        ("we moved it to Wednesday", "wednesday"),
    ],
)
def test_a_day_of_the_week_however_said_is_one_date(nlp: Any, text: str, day: str) -> None:
    assert [v.norm for v in said(nlp, text).values if v.kind == "date"] == [day]


def test_words_that_only_look_like_a_day_are_no_date(nlp: Any) -> None:
    assert not said(nlp, "I saw the sun and sat down").values


def test_the_kind_a_question_asks_for_is_not_its_topic() -> None:
    # "what time is standup" is about standup: a "focus time" request shares only the kind
    assert Focus.of("what time is the daily standup").words == {"daily", stem("standup")}
    assert "time" in Focus.of("how much time does the migration need?").words


def values_of(nlp: Any, text: str) -> list[tuple[str, str]]:
    return [(v.text, v.kind) for s in statements(nlp(text)) for v in s.values]


@pytest.mark.parametrize(
    ("text", "address"),
    [
        (
            "No, actually I'm going to 899 Sir Francis Drake Boulevard.",
            "899 Sir Francis Drake Boulevard",
        ),
        ("I need to go to 5988 Newpark Mall Road.", "5988 Newpark Mall Road"),
        ("We moved to 1 Infinite Loop.", "1 Infinite Loop"),
    ],
)
def test_a_house_number_is_part_of_its_street(nlp: Any, text: str, address: str) -> None:
    assert values_of(nlp, text) == [(address, "name")]


def test_a_number_counting_a_plural_name_or_naming_a_month_is_no_house_number(nlp: Any) -> None:
    assert values_of(nlp, "I bought 3 Apple Watches.") == [
        ("3", "number"),
        ("Apple Watches", "name"),
    ]
    assert ("12 May", "date") in values_of(nlp, "no, the twelfth — 12 May.")


def test_an_address_and_its_town_are_no_one_spoken_to(nlp: Any) -> None:
    # a name set off by a comma at a sentence's end is who is addressed ("Thanks so much, Mel!")
    assert values_of(nlp, "Saved: 221 Larch Street, Portland.") == [
        ("221 Larch Street", "name"),
        ("Portland", "name"),
    ]
    assert values_of(nlp, "Thanks so much, Mel!") == []


def test_an_ordinal_after_the_is_a_day_of_the_month(nlp: Any) -> None:
    assert values_of(nlp, "What about the 14th?") == [("14th", "date")]
    assert values_of(nlp, "I want to book it for the 3rd.") == [("3rd", "date")]
    assert values_of(nlp, "I am on the 3rd floor.") == [("3rd", "number")]


def test_a_corrected_address_is_never_written_into_a_count(nlp: Any) -> None:
    """SGD dev 2_00016: "I'm going to 899 Sir Francis Drake Boulevard" once replaced the
    ride's "2 people" with 899 ("The ride is for 899 people")."""
    told = statements(nlp("I'd like to go to 544 Central Avenue. The ride is for 2 people."))
    fix = next(
        s for s in statements(nlp("No, actually I'm going to 899 Sir Francis Drake Boulevard."))
    )
    ((_, replacement),) = corrects(fix, [(s, True) for s in reversed(told)])
    assert [(o.text, n.text) for o, n in replacement.changed] == [
        ("544 Central Avenue", "899 Sir Francis Drake Boulevard")
    ]
    assert substitute(replacement.old.text, replacement.changed, replacement.old.start) == (
        "I'd like to go to 899 Sir Francis Drake Boulevard."
    )


def test_a_day_of_the_month_does_not_replace_a_percentage(nlp: Any) -> None:
    """SGD dev 10_00019: "What about the 14th?" once made "the chance of rain is 14th"."""
    said = "The day's average temperature will be 94 degrees Fahrenheit and the chance of rain is 20 percent."
    told = statements(nlp(said))
    (fix,) = statements(nlp("What about the 14th?"))
    found = corrects(fix, [(s, False) for s in reversed(told)])
    assert all(o.kind != "percent" for _, r in found for o, _ in r.changed)


def test_a_length_of_time_is_a_duration_however_said(nlp: Any) -> None:
    (three,) = said(nlp, "You'll have it for 3 days.").values
    (again,) = said(nlp, "You'll have it for three days.").values
    assert (three.kind, three.norm) == ("duration", "3 day") and three.same(again)
    assert said(nlp, "I'll be there for a week.").values[0].norm == "1 week"
    assert said(nlp, "Noted: 3-week sprints.").values[0].norm == "3 week"
    assert not said(nlp, "we met two days ago").values  # when, not how long


def test_a_day_or_a_time_never_takes_the_place_of_a_length_or_a_count(nlp: Any) -> None:
    """SGD dev: "What about the 14th?" once made "You'll have it for 14th", and "a table for
    quarter past 12 in the afternoon" replaced "a table for 2"."""
    rented = statements(nlp("You'll have it for 3 days."))
    (day,) = statements(nlp("What about the 14th?"))
    assert not corrects(day, [(s, False) for s in rented])
    (table,) = statements(nlp("Yes, please reserve a table for 2."))
    (time,) = statements(nlp("Yes, please reserve a table for quarter past 12 in the afternoon."))
    assert not any(o.text == "2" for _, r in corrects(time, [(table, True)]) for o, _ in r.changed)
    # a bare hour still corrects a time: "the call is at 3" ... "sorry, 4"
    (call,) = statements(nlp("the call is at 3"))
    (four,) = statements(nlp("sorry, 4"))
    ((_, fixed),) = corrects(four, [(call, True)])
    assert [(o.text, n.text) for o, n in fixed.changed] == [("3", "4")]


def test_how_long_asks_for_a_length_of_time() -> None:
    # a length of time, or a number that says one without its unit ("net 45", "30s")
    for question in ("How long is the trial?", "How many days do Halden get to settle?"):
        assert Focus.of(question).families == {"duration", "amount"}
    # "within 30 days" answers when as well as a date does
    assert Focus.of("When is the invoice due?").families == {"time", "date", "duration"}
    assert Focus.of("How much do I owe HMRC?").families == {"amount"}


def test_a_domain_corrects_the_domain_of_an_email(nlp: Any) -> None:
    told = statements(
        nlp("The new supplier contact is Daniel Kovacs, email d.kovacs@baltictimber.lv.")
    )
    echo = statements(nlp("Noted: Daniel Kovacs (d.kovacs@baltictimber.lv) for timber orders."))
    (fix,) = statements(nlp("typo on my part, the domain is baltictimber.lt."))
    recent = [(s, False) for s in echo] + [(s, True) for s in told]
    written = [substitute(r.old.text, r.changed, r.old.start) for _, r in corrects(fix, recent)]
    assert sorted(written) == [
        "Daniel Kovacs (d.kovacs@baltictimber.lt) for timber orders.",
        "The new supplier contact is Daniel Kovacs, email d.kovacs@baltictimber.lt.",
    ]


def test_a_day_written_over_a_day_says_its_article_once(nlp: Any) -> None:
    (told,) = statements(nlp("Can you make an appointment for the 4th?"))
    (fix,) = statements(nlp("Actually, the 9th of March."))
    ((_, r),) = corrects(fix, [(told, True)])
    assert substitute(told.text, r.changed, told.start) == (
        "Can you make an appointment for the 9th of March?"
    )


def test_a_name_the_recognizer_cut_in_two_is_one_name(nlp: Any) -> None:
    # "Italian" is read as a nationality, "Affair" as a name of its own: a correction to
    # "Italian Affair" once wrote "a cab ride for 1 to Italian"
    assert values_of(nlp, "Actually I need to head to Italian Affair") == [
        ("Italian Affair", "name")
    ]


def test_a_day_of_the_month_corrects_the_day_of_a_date(nlp: Any) -> None:
    (told,) = statements(nlp("my wife's birthday is march 3rd"))
    fix = statements(nlp("scratch that, it's the 8th."))[0]
    ((_, r),) = corrects(fix, [(told, True)])
    assert substitute(told.text, r.changed, told.start) == "my wife's birthday is march 8th"


def test_an_amount_with_no_currency_is_no_money(nlp: Any) -> None:
    # the recognizer reads "518 7th Street" as money; a correction to it then wrote "a
    # regular ride, to Pool" (SGD train 22_00079)
    assert values_of(nlp, "No, I want a ride to 518 7th Street in a Pool ride.") == [
        ("518 7th Street", "name"),
        ("Pool", "name"),
    ]
    assert values_of(nlp, "that's 300 bucks") == [("300 bucks", "money")]
    assert values_of(nlp, "I paid $30") == [("$30", "money")]


@pytest.mark.parametrize(
    ("text", "date"),
    [
        ("I need to check in on next Thursday.", "next thursday"),
        ("Look for Seattle flights returning next Wednesday.", "next wednesday"),
        ("I want it from March 6th until the 8th.", "march 6"),
        ("The day after tomorrow works.", "the day after tomorrow"),
    ],
)
def test_a_day_a_statement_gives_is_its_value_however_near(nlp: Any, text: str, date: str) -> None:
    # Schema-Guided Dialogue users give the days they book in these words; the write path
    # once read each as when something happened and kept no value
    assert date in [v.norm for s in statements(nlp(text)) for v in s.values if v.kind == "date"]


def test_a_day_said_as_when_something_happened_is_no_value(nlp: Any) -> None:
    for text in ("We switched to Paddle last week.", "As of Monday, Priya runs the team."):
        kinds = [v.kind for s in statements(nlp(text)) for v in s.values]
        assert "date" not in kinds, text


@pytest.mark.parametrize(
    ("text", "norm"),
    [
        ("I will need it from 6th of march", "march 6"),
        ("Put my check in date as 5th of March.", "march 5"),
        ("Some time on 5th of this month.", "5th of this month"),
    ],
)
def test_an_ordinal_of_a_month_is_one_date(nlp: Any, text: str, norm: str) -> None:
    assert [(v.kind, v.norm) for s in statements(nlp(text)) for v in s.values] == [("date", norm)]


def test_a_day_of_a_month_is_one_value_in_any_order() -> None:
    def date(text: str) -> Value:
        return Value(text, "date", normal(text, "date"), 0, len(text), -1, -1)

    assert date("6th of March").same(date("march 6th"))
    assert date("the 6th of march").same(date("6 Mar"))
    assert not date("March 6th").same(date("March 16th"))


def test_a_part_of_the_day_and_an_hour_are_a_time(nlp: Any) -> None:
    assert values_of(nlp, "No, the appointment needs to be at evening 5.") == [
        ("evening 5", "time")
    ]
    (time,) = [v for s in statements(nlp("reserve a table at morning 11 for three people"))
               for v in s.values if v.kind == "time"]  # fmt: skip
    assert time.norm == "11:00"


@pytest.mark.parametrize(
    "text",
    ["I need a one way flight.", "Can you find me another one?", "I'd like to reserve that one.",
     "have a good one", "Yes, please reserve me a table on that day.",
     "Thank you for all you help. Have a lovely day."],
)  # fmt: skip
def test_a_one_or_a_day_that_refers_back_is_no_value(nlp: Any, text: str) -> None:
    assert [v.text for s in statements(nlp(text)) for v in s.values] == []


@pytest.mark.parametrize("text", ["Make it one.", "Can you get this for one person?", "Just one."])
def test_one_that_counts_is_a_number(nlp: Any, text: str) -> None:
    assert [v.norm for s in statements(nlp(text)) for v in s.values] == ["1"]


def test_a_bare_day_written_over_a_whole_date_says_the(nlp: Any) -> None:
    # SGD dev 10_00019: "What about the 14th?" after "the weather next Friday in Pescadero"
    (told,) = statements(nlp("Now tell me about the weather next Friday in Pescadero."))
    (fix,) = statements(nlp("What about the 14th?"))
    ((_, r),) = corrects(fix, [(told, True)])
    assert substitute(told.text, r.changed, told.start) == (
        "Now tell me about the weather the 14th in Pescadero."
    )
