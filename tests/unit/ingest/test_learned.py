"""Which sentences are core memory (``ingest/learned/recognise.py``), on the parse and the
statements a turn already has; and how a kind's cap keeps core small (``planning``)."""

from __future__ import annotations

from typing import Any

import pytest

from graph.core_ops import LearnedCore
from ingest.extract.statements import extract
from ingest.learned.common import Learned
from ingest.learned.planning import CAPS, _over_cap
from ingest.learned.recognise import recognise
from ingest.slots.analysis import statements
from ingest.write.slots import asserted


def learned(nlp: Any, text: str) -> list[Learned]:
    """What ``recordTurn`` learns from a user's turn: the same three readings it makes."""
    doc = nlp(text)
    said = statements(doc, text)
    return recognise(doc, said, asserted(extract(doc, text), said))


@pytest.mark.parametrize(
    ("text", "want"),
    [
        (
            "The company is Wolf of Blog Street, also known as WOBS.",
            [("business:name", "The company is Wolf of Blog Street, also known as WOBS.")],
        ),
        ("We do link building.", [("business:what", "We do link building.")]),
        ("We're now called Blogwolf.", [("business:name", "We're now called Blogwolf.")]),
        ("We renamed the company to Blogwolf.", [("business:name", None)]),
        ("We're a small design studio in Leeds.", [("business:what", None)]),
        ("We specialise in B2B SaaS content.", [("business:what", None)]),
        (
            "I'm Dana Whitfield, head of ops at Brightline.",
            [("self:name", "I'm Dana Whitfield."), ("self:role", "I'm head of ops at Brightline.")],
        ),
        ("My name is Dana.", [("self:name", None)]),
        ("My name's Oliver Grant.", [("self:name", None)]),
        ("I'm Priya, I look after customer success.", [("self:name", None)]),
        ("Call me Dana.", [("self:name", None)]),
        ("I moved to CFO.", [("self:role", None)]),
        ("My role is head of partnerships.", [("self:role", None)]),
        ("I was promoted to head of sales in March.", [("self:role", None)]),
        ("I work as a freelance designer.", [("self:role", None)]),
        ("I lead the growth team at Brightline.", [("self:role", None)]),
        ("We're migrating billing to Paddle, about half done.", [("project:billi paddl", None)]),
        ("The Paddle migration is done.", [("project:migra paddl", None)]),
        ("Always answer in British English.", [("rule:answer english", None)]),
        ("Never schedule calls on Fridays.", [("rule:call schedule", None)]),
        ("Please keep replies under 150 words.", [("rule:topic:reply", None)]),
        ("I prefer bullet points for summaries.", [("rule:topic:summaries", None)]),
        ("Could you always write dates as YYYY-MM-DD?", [("rule:topic:date", None)]),
        ("Please use this on all future invoices.", [("rule:use invoice", None)]),
    ],
)
def test_what_is_core(nlp: Any, text: str, want: list[tuple[str, str | None]]) -> None:
    got = learned(nlp, text)
    assert [i.slot for i in got] == [slot for slot, _ in want]
    for item, (_, line) in zip(got, want, strict=True):
        assert item.text == (line if line is not None else text)


@pytest.mark.parametrize(
    "text",
    [
        "Are we still called WOBS?",  # a question
        "If we were called Blogwolf, would clients notice?",  # a supposition
        "If we were called Blogwolf we'd get more clients.",
        "Tom says we should call it Blogwolf.",  # someone else's view
        "Tom thinks we should always use emojis.",
        "Maybe we'll migrate billing to Paddle next quarter.",  # a possibility, a plan
        "Back in 2019 we were called Wolfpack.",  # history
        "We're not an agency.",  # not so
        "I'm a big fan of short headlines.",  # a liking, not a role
        "I'm a mix of excited and scared.",
        "I'm no writer like you.",
        "We make a great team.",  # a judgement, not a trade
        "Never give up!",  # encouragement, not a rule for the assistant
        "Make sure you take care of yourself.",
        "Just keep their area clean and make sure they get enough light.",
        "Love all the details and how you got the horse's grace.",  # "(I) love ...": a feeling
        "Always up for something sweet.",
        "Peter is one of our writers.",  # about someone else: a fact, not core
        "My job is a nightmare this week.",  # what the job is like, not which
        "I went to a support group yesterday.",  # an event
        "The webinar platform is Zoom.",  # a business we use, not ours
        "Our law firm is now Baker Lane.",
        "We renamed the mobile app to Lumen.",  # a product's name, not the business's
        "We now host the docs on Netlify.",  # a particular thing, not a trade
        "Write me a one liner to find the 10 biggest dirs.",  # one thing asked for now
        "make me a first week checklist",
        "nah keep it simple",  # a thing at hand
        "actually make that 28k total",
        "add 'must love dogs'",
    ],
)
def test_what_is_not_core(nlp: Any, text: str) -> None:
    assert learned(nlp, text) == []


def test_a_restatement_has_the_same_key(nlp: Any) -> None:
    first = learned(nlp, "Always answer in British English.")
    again = learned(nlp, "Always answer in British English!")
    other = learned(nlp, "Always answer in American English.")
    assert first[0].key == again[0].key != other[0].key
    assert first[0].slot == other[0].slot == "rule:answer english"  # one rule, two values
    changed = learned(nlp, "Actually, answer in American English from now on.")
    assert not first[0].change and changed[0].change and changed[0].slot == first[0].slot


def _core(i: int, slot: str, scope: str = "project:") -> LearnedCore:
    return LearnedCore(f"m{i}", slot, f"k{i}", scope, None, float(i))


def test_past_a_kinds_cap_the_oldest_leave_core() -> None:
    projects = [_core(i, f"project:p{i}") for i in range(CAPS["project"] + 2)]
    other_scope = [_core(100 + i, f"project:q{i}", "project:x") for i in range(3)]
    rules = [_core(200 + i, f"rule:r{i}", "user:u:") for i in range(3)]
    fresh = {projects[0].id}  # this turn's own item never leaves
    assert _over_cap([*projects, *other_scope, *rules], fresh) == ["m1", "m2"]
