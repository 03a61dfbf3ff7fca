"""Rule extraction on a labelled set (tests/data/ingest/extraction.jsonl) and its edge cases."""

from __future__ import annotations

import json
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

from core.types import MemoryType
from ingest.extract.rules import extract
from ingest.extract.sentences import is_pleasantry, split_sentences

DATA = Path(__file__).resolve().parents[2] / "data" / "ingest" / "extraction.jsonl"


def test_labelled_extraction_set() -> None:
    rows = [json.loads(line) for line in DATA.read_text().splitlines() if line.strip()]
    assert len(rows) >= 40
    expected = found = correct = 0
    for row in rows:
        want = {tuple(x) for x in row["expect"]}
        got = {(e.kind, e.predicate, e.object, e.negated) for e in extract(row["text"])}
        expected += len(want)
        found += len(got)
        correct += len(want & got)
    precision, recall = correct / max(1, found), correct / max(1, expected)
    print(f"rule extraction: precision {precision:.3f} recall {recall:.3f} on {len(rows)}")
    assert precision >= 0.9 and recall >= 0.85


def test_pleasantries_and_questions_produce_nothing() -> None:
    for text in ["Thanks!", "hi there", "Ok, sounds good.", "Good morning!", "Is Peter a writer?"]:
        assert extract(text) == [], text
    assert is_pleasantry("Thank you so much")
    assert not is_pleasantry("Thanks, Peter is now an editor at WOBS")


def test_corrections_and_negations_are_flagged() -> None:
    (fact,) = extract("Actually, Peter is an editor now.")
    assert (fact.predicate, fact.object, fact.correction, fact.negated) == (
        "role",
        "editor",
        True,
        False,
    )
    (neg,) = extract("He is no longer a writer.")
    assert neg.negated and neg.subject == "He" and neg.memory_type is MemoryType.FACT


def test_role_at_org_yields_role_and_employer() -> None:
    facts = extract("Peter is a senior writer at Wolf of Blog Street.")
    assert {(f.predicate, f.object) for f in facts} == {
        ("role", "writer"),
        ("employer", "Wolf of Blog Street"),
    }


@given(st.text(max_size=300))
def test_extract_never_crashes_and_spans_are_inside_the_text(text: str) -> None:
    for item in extract(text):
        assert 0 <= item.start <= item.end <= len(text)
        if item.subject_start >= 0 and item.kind == "fact":
            assert text[item.subject_start :].startswith(item.subject or "")


@given(st.text(max_size=300))
def test_sentences_are_substrings_at_their_offsets(text: str) -> None:
    for s in split_sentences(text):
        assert text[s.start : s.end] == s.text
