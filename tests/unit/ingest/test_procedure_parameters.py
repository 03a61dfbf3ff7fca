"""A procedure's parameter changed in conversation, whatever kind of value it is: a quoted
text, a name, a number said in words, a ratio, or a word said again in the procedure's own
words around it (``ingest/write/procedure_changes.py``)."""

from __future__ import annotations

from typing import Any

import pytest

from core.types import Memory, MemoryType
from ingest.extract.procedures import extract, parse
from ingest.extract.sentences import content_words
from ingest.slots.analysis import statements
from ingest.write.procedure_changes import _parameter, _substitution
from tests.memories import a_memory


def procedure(text: str) -> Memory:
    return a_memory(text, MemoryType.PROCEDURAL)


def change(nlp: Any, said: str, taught: str) -> tuple[str, str] | None:
    turn = statements(nlp(said))
    # as ProcedureChanges.plan reads a turn: its frames' words and its content words
    words = frozenset(w for s in turn for w in s.words) | {w.lower() for w in content_words(said)}
    for s in turn:
        found = _parameter(s, procedure(taught), words) or _substitution(s, procedure(taught))
        if found is not None:
            return found[0].text, found[1].text
    return None


@pytest.mark.parametrize(
    ("taught", "said", "want"),
    [
        (  # a quoted text, the statement saying it changes
            "when you write release notes end with 'Thanks to all our contributors!'",
            "for release notes, the closing line should be 'Shipped with care' going forward",
            ("Thanks to all our contributors!", "Shipped with care"),
        ),
        (  # a name said of the same thing, in a sentence that does not say it changes
            "checklist for the month end: export the P&L, and send a summary email to Marcus",
            "for the month end, the summary goes to Dolores, she took over finance",
            ("Marcus", "Dolores"),
        ),
        (  # a number in words, of the same unit
            "review: client gets 2 rounds of revisions included, finals as PDF",
            "new contracts include three rounds of revisions now",
            ("2 rounds", "three rounds"),
        ),
        (  # a ratio
            "my sourdough routine: feed the starter 1:1:1, then into the fridge",
            "the sourdough starter was too sour so I'm doing 1:2:2 now instead",
            ("1:1:1", "1:2:2"),
        ),
        (  # a word in the procedure's own words around it
            "registration steps: 1) copy the ID, 2) have them fill in the blue form",
            "registration change: new patients now fill in the green form",
            ("blue", "green"),
        ),
        (  # an amount said with its value's own words only ("Sundays"), the turn saying why
            "the way I do the plants: the fig gets 500ml every Sunday, the ferns get misted daily",
            "the fig got root rot. it only gets 350ml on Sundays now. the rest is the same",
            ("500", "350"),
        ),
        (  # a channel
            "release checklist: 1. bump the version 2. run the tests 3. post the changelog in"
            " #releases",
            "small change to the release list: the changelog goes to #deployments now",
            ("#releases", "#deployments"),
        ),
        (  # "make the limit ...": a value set anew
            "Whenever I send you a draft email to tidy up, keep it under 150 words, cut the"
            " pleasantries",
            "Your tidied emails are a bit too clipped. Let's make the limit 200 words.",
            ("150 words", "200 words"),
        ),
        (  # a count of the same things, said as so now, with nothing else said of them
            "when you summarize meeting notes for me keep it to 5 bullets max and put the"
            " action items in bold at the end",
            "meeting summaries: 3 bullets tops please, i dont read past that anyway",
            ("5 bullets", "3 bullets"),
        ),
    ],
)
def test_a_parameter_changes_whatever_its_kind(
    nlp: Any, taught: str, said: str, want: tuple[str, str]
) -> None:
    assert change(nlp, said, taught) == want


def test_a_statement_about_something_else_changes_nothing(nlp: Any) -> None:
    taught = "registration steps: 1) copy the ID, 2) have them fill in the blue form"
    assert (
        change(nlp, "the printer in reception is jamming on the blue paper again", taught) is None
    )
    assert change(nlp, "they should not fill in the green form", taught) is None
    assert change(nlp, "they shouldn't fill in the green form", taught) is None
    # a count of the same things told as what happened is no new rule
    summaries = "when you summarize meeting notes for me keep it to 5 bullets max"
    assert change(nlp, "the last summary had 8 bullets and I skimmed it", summaries) is None


def test_a_heading_after_a_lead_in_sentence_is_a_procedure() -> None:
    found = parse(
        "Training the new Saturday staff on returns. Our process: check the receipt, refund"
        " to the original payment method, and log every return in the red binder."
    )
    assert found is not None and found.trigger == "Training the new Saturday staff on returns"
    assert len(found.steps) == 3


@pytest.mark.parametrize(
    ("text", "trigger", "steps"),
    [
        (
            "when you summarize meeting notes for me keep it to 5 bullets max and put the"
            " action items in bold at the end",
            "when you summarize meeting notes for me",
            2,
        ),
        (
            "whenever I send you a contract check the payment terms first and flag anything"
            " over 30 days",
            "whenever I send you a contract",
            2,
        ),
        (  # one rule, and what only describes goes on it
            "before you suggest any recipe, always check it's nut-free and that it takes 45"
            " minutes or less, we're shattered on weeknights",
            "before you suggest any recipe",
            1,
        ),
        ("when we went to Lisbon we stayed at Casa Azul", None, 0),  # a memory, no instruction
        ("When I get home I usually cook pasta", None, 0),
    ],
)
def test_an_instruction_led_by_when_without_a_comma(
    nlp: Any, text: str, trigger: str | None, steps: int
) -> None:
    found = extract(text, nlp(text))
    assert [(f.trigger, len(f.steps)) for f in found] == ([(trigger, steps)] if trigger else [])


def test_a_new_amount_said_as_a_heading_changes_the_procedure(nlp: Any) -> None:
    # "New amount for the fig: 300 ml per watering": the thing given a value is said to be new
    (statement, *_) = statements(nlp("New amount for the fig: 300 ml per watering."))
    assert statement.change
    (had,) = statements(nlp("We got a new puppy called Max."))
    assert not had.change


@pytest.mark.parametrize(
    ("text", "trigger"),
    [
        ("My rule for the fiddle leaf fig: only water when the top 5 cm of soil is dry, give it "
         "500 ml of room-temperature water, and rotate the pot a quarter turn every Sunday.",
         "the fiddle leaf fig"),
        ("Our expense policy: anything over $75 needs a photo of the receipt, submit it in "
         "Expensify by Friday noon, and tag it with the client's project code.", "expense"),
    ],
)  # fmt: skip
def test_a_rule_or_a_policy_heading_names_a_procedure(text: str, trigger: str) -> None:
    found = parse(text)
    assert found is not None and found.trigger == trigger and len(found.steps) == 3


def test_a_new_amount_changes_the_procedure_it_names(nlp: Any) -> None:
    taught = (
        "My rule for the fiddle leaf fig: only water when the top 5 cm of soil is dry, give it "
        "500 ml of room-temperature water, and rotate the pot a quarter turn every Sunday."
    )
    assert change(nlp, "New amount for the fig: 300 ml per watering.", taught) == (
        "500 ml",
        "300 ml",
    )
