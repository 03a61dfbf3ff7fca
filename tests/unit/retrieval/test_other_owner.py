"""What a question asks of the speaker's own ("who is my manager?") said of another owner ("my
wife's manager, Gareth, ...") is no value of it: it goes after the speaker's own, unlabelled,
however new; a question that does not say whose, or only other owners' values, changes
nothing."""

from __future__ import annotations

from typing import Any

import pytest

from core.slots import Focus
from ingest.slots.analysis import statements
from retrieval.slots import _by_question
from tests.memories import ranked, said

DAY = 86_400.0
MINE = "my manager is Tom Reyes, he's chill, we do 1:1s on Mondays"
WIFES = "my wife's manager, Gareth, is an absolute nightmare. emails her at 11pm"


def first_statement(nlp: Any, text: str) -> Any:
    return statements(nlp(text))[0]


@pytest.mark.parametrize(
    ("question", "text", "elsewhere"),
    [
        ("who is my manager?", WIFES, True),
        ("who is my manager?", MINE, False),
        ("what is our deadline?", "the client's deadline is March 3", True),
        ("what is the client's deadline?", "the client's deadline is March 3", False),
        ("who is the manager?", WIFES, False),  # whose is not said: any owner may be meant
        ("who is my wife's manager?", WIFES, False),
    ],
)
def test_a_statement_of_another_owner(nlp: Any, question: str, text: str, elsewhere: bool) -> None:
    assert Focus.of(question).owned_elsewhere(first_statement(nlp, text)) is elsewhere


def test_another_owners_value_goes_after_the_speakers_own_unlabelled(nlp: Any) -> None:
    mine = said(nlp, MINE, 3 * DAY)
    wifes = said(nlp, WIFES, 27 * DAY)  # newer, and ranked first by the search

    out = _by_question(
        ranked(wifes, mine),
        Focus.of("who is my manager?"),
        False,
    )

    assert [h.memory.id for h in out] == [mine.id, wifes.id]
    assert all(h.memory.earlier_until is None for h in out)  # not an earlier value of mine


def test_only_other_owners_values_keep_their_order(nlp: Any) -> None:
    wifes = said(nlp, WIFES, 27 * DAY)
    sisters = said(nlp, "my sister's manager, Dana Lee, just quit", 30 * DAY)
    hits = ranked(wifes, sisters)

    out = _by_question(hits, Focus.of("who is my manager?"), False)

    assert [h.memory.id for h in out] == [wifes.id, sisters.id]


def test_among_other_owners_values_the_newest_still_leads(nlp: Any) -> None:
    """When every hit is another owner's, the question's check runs as it would without the
    owner rule: the newer value of the wife's manager leads."""
    old = said(nlp, "my wife's manager is Gareth Hale", 27 * DAY)
    new = said(nlp, "my wife's manager is Dana Lee now", 40 * DAY)

    out = _by_question(
        ranked(old, new),
        Focus.of("who is my manager?"),
        False,
    )

    assert [h.memory.id for h in out] == [new.id, old.id]
