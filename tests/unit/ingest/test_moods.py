"""What a sentence does with its values (``ingest/slots/mood.py``): asserts, asks, supposes,
plans, reports or corrects them; only assertions and requests hold a value."""

from __future__ import annotations

from typing import Any

import pytest

from core.statements import Statement
from ingest.slots.analysis import statements


def said(nlp: Any, text: str) -> Statement:
    return statements(nlp(text))[-1]


@pytest.mark.parametrize(
    ("text", "mood"),
    [
        ("Our payment provider is now Paddle.", "assert"),
        ("Is the staging server still on Hetzner?", "question"),
        ("If the lease goes up we might move the office to York.", "conditional"),
        ("We might move the staging server to AWS.", "modal"),
        ("Next quarter we'll switch the CRM to Salesforce.", "plan"),
        ("Marco thinks our design tool should be Penpot.", "reported"),
        ("Back in 2019 we tracked bugs in Bugzilla.", "history"),
        ("We don't use Stripe anymore.", "negation"),
        ("I went to the beach last Saturday.", "event"),
        ("Could you book a table for 3 at 18:45?", "request"),
        ("How about the 9th?", "request"),
        ("Actually, how about Saturday instead?", "request"),  # after an opener too
        ("Thanks, noted the production database is now a db.r6g.2xlarge.", "assert"),
        ("I heard the office is moving to Leeds.", "reported"),
        # a clause of its own, set off by a comma, that holds the values: its mood
        (
            "Grandma Rosa is watching the kids on date nights from this month, she insisted.",
            "assert",
        ),
        ("Earlier I told you the wrong time, school lets out at 2:55 on normal days.", "assert"),
        ("The office is in Leeds, I heard.", "reported"),  # hearsay wherever it stands
        ("The launch is on May 3, Tom says.", "reported"),  # his word
        # the verb that reports is the one the subject goes on doing
        ("My brother keeps insisting Vanguard is better.", "reported"),
        ("I keep telling them the office is in Leeds.", "assert"),
        # a clause of its own after "and" that holds the values: its mood, not the event's
        ("omg I had her date wrong, the invite came and it's Sept 27th.", "assert"),
        (
            "Hannah shifted our one-on-one to Monday mornings, she says it sets up her week.",
            "assert",
        ),
        # "in case" after what is told says why it is told; before it, what the values need
        ("Her number is 555-0101 in case you need it.", "assert"),
        ("In case the deadline moves to Friday, book the room for Thursday.", "conditional"),
        # so is a condition set off by a break after a value: it tells when the rest applies
        ("Our head of sales is Renata Kowalski, if I mention pipeline reviews it's her.", "assert"),
        (
            "i go to PureFit on Mill Road, usually tues, sometimes a sat morning if im feeling up"
            " to it",
            "assert",
        ),
        ("I'll come at 3 if it rains.", "conditional"),  # the value right before it: supposed
        ("If we ever move to Paddle, tell me first.", "conditional"),
        ("Unless something changes, the offsite is in Porto.", "conditional"),
        ("We'd switch to Paddle, if Stripe raises its fees again.", "conditional"),  # would be
    ],
)
def test_only_assertions_and_requests_hold_a_value(nlp: Any, text: str, mood: str) -> None:
    statement = said(nlp, text)
    assert statement.mood == mood
    assert statement.slotted is (mood in ("assert", "request"))


def test_a_reporting_verb_said_not_to_happen_reports_nothing(nlp: Any) -> None:
    """ "I dont read past that" reports no one's words: the count asked for is said as so."""
    first = statements(
        nlp(
            "meeting summaries: 3 bullets tops please, i dont read past that anyway. still bold"
            " actions at the end"
        )
    )[0]
    assert (first.mood, [v.text for v in first.values]) == ("assert", ["3"])
    assert said(nlp, "I read the office is moving to Leeds.").mood == "reported"


def test_a_no_among_a_turn_s_opening_words_corrects(nlp: Any) -> None:
    """ "ah no, it's Larch Avenue" corrects as "no, Larch Avenue" does; "oh no" is dismay."""
    assert said(nlp, "ah no, it's Larch Avenue.").correction
    assert said(nlp, "no, it's Larch Avenue.").correction
    assert not said(nlp, "oh no, the flight is delayed to 9pm").correction


@pytest.mark.parametrize(
    ("text", "mood"),
    [
        # an "if" clause a verb of finding out takes as its object asks; it supposes nothing
        ("I'd like to see if there are any Premium Economy tickets from Washington.", "request"),
        ("See if she has an opening for tomorrow at 14:00 please.", "request"),
        ("Check if they have a table for 4 at 7pm.", "request"),
        ("Let me know if the rent goes up to 1400.", "conditional"),
        ("Brightwell's coordinator asked if we could push things to the 21st.", "conditional"),
        ("I would need 2 rooms at a 1 star hotel.", "request"),
        ("No, I meant to say the 14th.", "assert"),
        # a view or a hedge held by the values' own clause
        ("Derek keeps arguing standup should be at 11:00 because mornings are early.", "reported"),
        ("My cofounder is convinced we should be charging $49/mo.", "reported"),
        # told, to be kept; and a question however punctuated
        ("can u remember my dentist appt, thursday at 14:30 with dr kaur", "assert"),
        ("do you remember where I parked on the 3rd?", "question"),
        ("What is your opinion on Larkspur on March 3rd.", "question"),
        ("What I need is a table for 4.", "assert"),
    ],
)
def test_what_is_asked_to_be_found_out_or_wanted_is_no_supposition(
    nlp: Any, text: str, mood: str
) -> None:
    assert said(nlp, text).mood == mood


def test_someone_elses_should_be_corrects_nothing(nlp: Any) -> None:
    assert not said(nlp, "Derek keeps arguing standup should be at 11:00.").correction
    assert said(nlp, "sorry, it should be 4").correction


def test_a_hedge_on_the_values_own_verb_supposes_them(nlp: Any) -> None:
    (plan, *_) = statements(
        nlp("thinking I might open a Starling account at some point next year, haven't decided")
    )
    assert plan.mood == "modal"
    (call, *_) = statements(nlp("The call is at 4 but it might move."))
    assert call.mood == "assert"
