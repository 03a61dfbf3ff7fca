"""The duplicate-merge statement guard on the labelled pairs of tests/data/lifecycle (the bench
``bench/duplicates.py`` adds the embedder's cosine to the same decision)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from ingest.lifecycle.duplicates import compatible
from ingest.lifecycle.statements import differences, same_statement

PAIRS = [
    json.loads(line)
    for line in (Path(__file__).parents[2] / "data/lifecycle/duplicate_pairs.jsonl")
    .read_text()
    .splitlines()
]
# Copies a merge must still find; true paraphrases that swap words may stay apart.
COPIES = {"case", "punctuation", "prefix", "whitespace", "contraction", "number format",
          "word order", "detail"}  # fmt: skip


def test_the_labelled_set_is_large_and_varied() -> None:
    kinds = {p["kind"] for p in PAIRS if p["label"] == "different"}
    assert len(PAIRS) >= 200 and {"number", "name", "date", "negation", "value"} <= kinds


def test_no_near_miss_passes_as_the_same_statement() -> None:
    passed = [p for p in PAIRS if p["label"] == "different" and same_statement(p["a"], p["b"])]
    assert passed == []


def test_copies_of_a_statement_pass() -> None:
    kept_apart = [
        (p["a"], p["b"], differences(p["a"], p["b"]))
        for p in PAIRS
        if p["kind"] in COPIES and not same_statement(p["a"], p["b"])
    ]
    assert kept_apart == []


@pytest.mark.parametrize(
    ("a", "b", "why"),
    [
        ("The warehouse 1 door code is 1000", "The warehouse 3 door code is 1000", "numbers"),
        ("Budget: 5,000 EUR", "Budget: 5,500 EUR", "numbers"),
        ("Peter is a writer at WOBS", "Paul is a writer at WOBS", "names"),
        ("The audit is on Monday", "The audit is on Tuesday", "dates"),
        ("The launch is next week", "The launch was last week", "dates"),
        ("We deploy on Fridays", "We don't deploy on Fridays", "negation"),
        ("Anna prefers tea", "Anna prefers coffee", "words"),
        ("Traffic went up", "Traffic went down", "qualifiers"),
    ],
)
def test_what_makes_two_statements_different(a: str, b: str, why: str) -> None:
    assert why in differences(a, b)
    assert not compatible({"entity_ids": [], "content": a}, {"entity_ids": [], "content": b})


def test_same_words_in_other_forms_are_one_statement() -> None:
    assert same_statement("Budget: 5,000 EUR", "budget: 5000 EUR.")
    assert same_statement("We renew every Jan.", "We renew every January")
    assert same_statement("Deploys go to AWS.", "Note: deploys go to AWS")
