"""The profile summary: each current statement once, with the day it was said."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from core.types import Entity, EntityType
from graph.resolution_ops import ProfileMemory, Replaced
from resolution.summary import build_summary, content_terms, same_statement, statements

JAN_10 = 1_673_308_800.0  # 2023-01-10 00:00 UTC
DAY = 86_400.0


def entity(name: str, *aliases: str) -> Entity:
    return Entity(id=name.lower(), tenant_id="t", name=name, type=EntityType.PERSON,
                  aliases=aliases, first_seen=0, last_seen=0)  # fmt: skip


def said(content: str, days: float = 0.0, importance: float = 0.5) -> ProfileMemory:
    return ProfileMemory(content, importance, JAN_10 + days * DAY)


def test_a_statement_said_again_with_other_case_punctuation_or_spacing_is_kept_once() -> None:
    summary = build_summary(
        entity("Peter"),
        [
            said("Peter is one of our writers.", 0, 0.7),  # the fact
            said("Peter is one of our writers.", 0),  # the turn it was extracted from
            said("peter is one of our WRITERS!", 1),
            said("Peter  is one of our writers", 2),
        ],
        max_chars=600,
    )
    assert len(statements(summary)) == 1
    assert summary == "[2023-01-12] Peter is one of our writers."  # the newest saying


def test_a_clause_of_a_longer_sentence_is_kept_once_in_the_longer_wording() -> None:
    """The review's profile: the statement extracted from a clause (no stop of its own) ran
    into the turn that said it with more."""
    clause = "Peter Alvarez is the CTO at our client Brightline"
    turn = f"{clause}; he manages the platform team."
    summary = build_summary(
        entity("Peter Alvarez"),
        [
            said(clause, 0, 0.7),
            said("peter alvarez is the CTO at our client Brightline!", 1),
            said(turn, 0),
        ],
        max_chars=600,
    )
    assert summary == f"[2023-01-10] {turn}"
    assert "Brightline Peter" not in summary


def test_different_people_numbers_and_negations_stay_different_statements() -> None:
    lines = [
        "Peter is one of our writers.",
        "Maria is one of our writers.",
        "Peter is not one of our editors.",
        "Peter is one of our editors.",
        "Peter has two kids.",
        "Peter has three kids.",
    ]
    summary = build_summary(entity("Peter"), [said(t) for t in lines], max_chars=600)
    assert sorted(statements(summary)) == sorted(lines)


def test_a_sentence_a_correction_replaced_is_left_out_unless_said_after_it() -> None:
    writer = Replaced("Peter is one of our writers.", JAN_10 + 1 * DAY)
    material = [
        said("Actually, Peter is our editor now.", 1, 0.7),  # the correction
        said("Peter is one of our writers. He lives in Leeds.", 0),  # the corrected turn
    ]
    summary = build_summary(entity("Peter"), material, 600, [writer])
    assert statements(summary) == ["Actually, Peter is our editor now.", "He lives in Leeds."]
    # said again after the correction, it is current again
    again = build_summary(entity("Peter"), [*material, said("Peter is one of our writers!", 3)],
                          600, [writer])  # fmt: skip
    assert "Peter is one of our writers!" in statements(again)


def test_named_sentences_come_first_and_the_days_count_in_the_budget() -> None:
    memories = [
        said("We do link building. Pete is one of our writers.", 0),
        said("The office moved to Lisbon.", 2, 0.9),
    ]
    summary = build_summary(entity("Peter", "Pete"), memories, max_chars=200)
    assert summary == (
        "[2023-01-10] Pete is one of our writers. [2023-01-12] The office moved to Lisbon. "
        "[2023-01-10] We do link building."
    )
    assert build_summary(entity("Peter", "Pete"), memories, max_chars=60) == (
        "[2023-01-10] Pete is one of our writers."
    )
    assert len(build_summary(entity("Peter"), memories * 50, max_chars=20)) == 20


def test_statements_are_the_sentences_without_their_days() -> None:
    assert statements("[2023-01-10] Peter writes. He edits too. [2023-02-01] He left!") == [
        "Peter writes.",
        "He edits too.",
        "He left!",
    ]
    assert statements("Peter writes. He left.") == ["Peter writes.", "He left."]  # stored before
    assert statements(" ") == []


def test_same_statement_is_token_set_containment() -> None:
    short = content_terms("Peter Alvarez works at client Brightline.")
    long = content_terms("Peter Alvarez is the CTO at our client Brightline; he manages a team.")
    assert same_statement(short, long) and same_statement(long, short)
    assert not same_statement(content_terms("Peter."), content_terms("Peter writes."))
    assert same_statement(content_terms("Thanks!"), content_terms("thanks"))


SENTENCES = st.sampled_from(
    [
        "Peter is one of our writers",
        "Peter Alvarez is the CTO at our client Brightline",
        "Peter Alvarez is the CTO at our client Brightline; he manages the platform team",
        "Maria is one of our writers",
        "Peter is not one of our editors",
        "The office moved to Lisbon",
    ]
)
SAID = st.tuples(
    SENTENCES,
    st.sampled_from([".", "!", "", " ."]),
    st.sampled_from([str, str.lower, str.upper]),
    st.integers(min_value=0, max_value=30),
)


@settings(max_examples=60, deadline=None)
@given(st.lists(SAID, min_size=1, max_size=12))
def test_no_two_statements_of_a_summary_say_the_same(items: list[tuple]) -> None:
    memories = [said(case(text) + stop, days) for text, stop, case, days in items]
    summary = build_summary(entity("Peter"), memories, max_chars=2000)
    kept = statements(summary)
    terms = [content_terms(s) for s in kept]
    assert all(not same_statement(a, b) for i, a in enumerate(terms) for b in terms[i + 1 :]), (
        summary
    )
    assert summary.count("[20") == len(kept)  # each statement with its day
    for text, _, _, _ in items:  # and every one said is there in some wording
        assert any(same_statement(content_terms(text), t) for t in terms), (text, summary)


def test_a_titles_stop_does_not_end_a_profile_sentence() -> None:
    said = statements(
        "[2025-01-09] Biscuit's vet is Dr. Haller at Riverside. J. Smith is his nurse."
    )
    assert said == ["Biscuit's vet is Dr. Haller at Riverside.", "J. Smith is his nurse."]
