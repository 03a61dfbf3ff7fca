"""The parse-based statement extractor on the issue's own sentences and on the labelled
development set (``tests/data/ingest/statements_dev.jsonl``; the held-out set is for
``bench.extraction`` only, so no test tunes on it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.extraction import SETS, predicted, score


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The staging server is on Hetzner.", ("fact", "staging server", "location", "Hetzner")),
        (
            "We moved the staging server to AWS last week.",
            ("change", "staging server", "location", "AWS"),
        ),
        (
            "We switched the deploy target back to staging.",
            ("change", "deploy target", "value", "staging"),
        ),
        ("The threshold is now 90%.", ("change", "threshold", "value", "90%")),
        (
            "Blog traffic was 500 visits a week.",
            ("fact", "blog traffic", "value", "500 visits a week"),
        ),
        (
            "Keep my blog posts shorter than 800 words, please.",
            ("preference", "user", "preference:blog post", None),
        ),
    ],
)
def test_the_issues_sentences(nlp: Any, text: str, want: tuple[str, ...]) -> None:
    (got,) = predicted(nlp, text)
    assert (got["type"], got["subject"], got["attribute"]) == want[:3]
    if want[3] is not None:
        assert got["value"] == want[3]


def test_a_role_and_an_employer_from_one_sentence(nlp: Any) -> None:
    got = predicted(nlp, "Sarah Okafor is the head of procurement at our client Dunmore Foods.")
    assert [(g["attribute"], g["value"]) for g in got] == [
        ("role", "head of procurement"),
        ("employer", "Dunmore Foods"),
    ]


def test_two_phrasings_of_one_preference_share_its_topic(nlp: Any) -> None:
    (a,) = predicted(nlp, "Keep my blog posts shorter than 800 words, please.")
    (b,) = predicted(nlp, "I prefer blog posts under 800 words.")
    assert a["attribute"] == b["attribute"] == "preference:blog post"


@pytest.mark.parametrize(
    "text",
    [
        "The weather is nice today.",
        "My dog is a labrador.",
        "That meeting could have been an email.",
        "When we got there, the food was cold.",
        "How is the launch going?",
    ],
)
def test_small_talk_states_nothing(nlp: Any, text: str) -> None:
    assert predicted(nlp, text) == []


def test_the_development_set(nlp: Any) -> None:
    rows = [json.loads(line) for line in SETS["dev"].read_text().splitlines() if line.strip()]
    result = score(nlp, rows)["per_type"]
    for kind, row in result.items():
        assert row["precision"] >= 0.9 and row["recall"] >= 0.9, (kind, row)


@pytest.mark.parametrize(
    ("text", "want"),
    [
        # possessives: a topic's owner narrows it; a name's attribute is the name's
        ("The website's bounce rate is 45%.", [("fact", "website's bounce rate", "45%")]),
        ("Globex's CTO is Omar Haddad.", [("fact", "Globex", "Omar Haddad")]),
        # passives, measures, dates
        ("The invoices are handled by Dana.", [("fact", "invoices", "Dana")]),
        ("Our mailing list has 8000 subscribers.", [("fact", "mailing list", "8000 subscribers")]),
        ("Monthly signups sit at 350.", [("fact", "monthly signups", "350")]),
        ("The trade fair starts on May 4.", [("fact", "trade fair", "May 4")]),
        ("The subscription price went up to 15 dollars.", [("change", "subscription price", "15 dollars")]),
        # lists and roles said beside a name
        (
            "The wiki and the bug tracker are on Atlassian.",
            [("fact", "wiki", "Atlassian"), ("fact", "bug tracker", "Atlassian")],
        ),
        (
            "Ivy Chen, our CFO, is based in Toronto.",
            [("fact", "Ivy Chen", "Toronto"), ("fact", "Ivy Chen", "cfo")],
        ),
        ("Eva Lind left Globex and joined Stark Industries.", [("change", "Eva Lind", "Stark Industries")]),
        ("Omar has been promoted to head of sales.", [("change", "Omar", "head of sales")]),
    ],
)  # fmt: skip
def test_facts_beyond_the_copula(nlp: Any, text: str, want: list[tuple[str, str, str]]) -> None:
    got = [(g["type"], g["subject"], g["value"]) for g in predicted(nlp, text)]
    assert got == want


@pytest.mark.parametrize(
    "text",
    [
        "Going forward, copy Mark on every proposal.",
        "Remember to always add alt text to images.",
        "I'd rather you skip the small talk in emails.",
        "No more than two exclamation marks per email, please.",
    ],
)
def test_rules_in_other_moods_are_preferences(nlp: Any, text: str) -> None:
    assert [g["type"] for g in predicted(nlp, text)] == ["preference"]


@pytest.mark.parametrize(
    "text",
    [
        'Tom said, "never use the old logo."',  # someone's words, quoted
        "Anna wants us to use Jira.",  # someone else's wish
        "I used to prefer window seats.",  # a past habit
        "If I were in charge, I'd keep the meetings short.",  # a hypothesis
        "Keep it up, you're doing amazing!",  # encouragement
        "Make sure to have fun this weekend!",
        "Send my regards to your parents.",  # a one-off request
        "Let me know if you need any help.",
        "Never mind, it works now.",
        "Always glad to help.",
        "I went on a mountaineering trip last week with some workmates.",  # not "went with"
        "They're my biggest support.",  # a relation, not a role
    ],
)
def test_what_only_looks_like_a_statement_states_nothing(nlp: Any, text: str) -> None:
    assert predicted(nlp, text) == []


def test_decisions_and_conditional_procedures_from_the_parse(nlp: Any) -> None:
    assert [g["type"] for g in predicted(nlp, "We opted to delay the launch.")] == ["decision"]
    (proc,) = predicted(
        nlp, "If a client asks for a discount, check with Mark and log the request in HubSpot."
    )
    assert proc["type"] == "procedure" and len(proc["value"]) == 2
    assert predicted(nlp, "If possible, call me tomorrow.") == []


@pytest.mark.parametrize(
    ("text", "want"),
    [
        ("The design channel was renamed to Creative.", [("change", "design channel", "Creative")]),
        ("We replaced the old firewall with a FortiGate.", [("change", "firewall", "FortiGate")]),
        ("We dropped Zoom for Google Meet as our video tool.", [("change", "video tool", "Google Meet")]),
        ("Jana left Initech for Hooli.", [("change", "Jana", "Hooli")]),
        ("Mila has taken over as office manager.", [("change", "Mila", "office manager")]),
        ("Going forward, the deadline is Thursday noon.", [("change", "deadline", "Thursday noon")]),
        ("Since January the CRM has been on Attio.", [("change", "crm", "Attio")]),
        ("From now on, the invoices go to Martin instead of Dana.", [("change", "invoices", "Martin")]),
        # the clause after "it": the sentence before says what "it" is
        ("The main language is no longer French; it's English.", [("change", "main language", "English")]),
        # a heading before a colon, and a second clause that shares nothing with the first
        (
            "Changes for next month: the webinar moves to Wednesdays and the newsletter moves to Fridays.",
            [("change", "webinar", "Wednesdays"), ("change", "newsletter", "Fridays")],
        ),
        # a name beside a topic: the sentence is about the name, the topic is its role
        (
            "Our sales lead, Owen Price, is in Cardiff.",
            [("fact", "Owen Price", "Cardiff"), ("fact", "Owen Price", "sales lead")],
        ),
        ("Elif Kaya is the COO of Meridian.", [("fact", "Elif Kaya", "coo"), ("fact", "Elif Kaya", "Meridian")]),
    ],
)  # fmt: skip
def test_changes_said_in_other_words(nlp: Any, text: str, want: list[tuple[str, str, str]]) -> None:
    got = [(g["type"], g["subject"], g["value"]) for g in predicted(nlp, text)]
    assert got == want


@pytest.mark.parametrize(
    "text",
    [
        "If the board approves, we'll move the office to Leeds.",  # a condition, not yet so
        "Our neighbours moved to Spain.",  # small talk about the speaker's people
        "Our dog is on a diet now.",  # "on a diet": a state, no place
        'Omar said, "the launch is in May now."',
        "We're planning to migrate the CRM in Q3.",
    ],
)
def test_changes_that_are_not_the_tenants(nlp: Any, text: str) -> None:
    assert predicted(nlp, text) == []
