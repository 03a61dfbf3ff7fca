"""The parse-based statement extractor on the issue's own sentences and on the labelled
development set (``tests/data/ingest/statements_dev.jsonl``; the held-out set is for
``bench.extraction`` only, so no test tunes on it)."""

from __future__ import annotations

import json
from typing import Any

import pytest

from bench.extraction import SETS, predicted, score
from core.settings import Settings


@pytest.fixture(scope="module")
def nlp() -> Any:
    import spacy

    return spacy.load(Settings().resolution.spacy_model)


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
