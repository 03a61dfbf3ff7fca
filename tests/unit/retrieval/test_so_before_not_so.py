"""What is so is read before what is not (``retrieval/answers.so_before_not_so``): a line
that gives its values only as denied, supposed, planned or someone else's view, or as what
one of the user's relatives has, goes after the user's own line that says a value of that
kind as so, whatever the search's order. The negative controls of the change scenarios
(bench/data/changes_heldout7.json, changes_heldout8.json) failed on these lines."""

from __future__ import annotations

from typing import Any

from core.slots import Focus
from retrieval.answers import so_before_not_so
from tests.memories import ranked, said

DAY = 86_400.0


def order(nlp: Any, question: str, *texts: str) -> list[str]:
    """The lines in the order read, the later ones said later (ranked in the order given)."""
    memories = [said(nlp, t, (k + 1) * DAY) for k, t in enumerate(texts)]
    out = so_before_not_so(ranked(*memories), Focus.of(question), frozenset())
    return [h.memory.content for h in out]


def test_someone_elses_view_goes_after_the_value_said_as_so(nlp: Any) -> None:
    opinion = "Derek keeps arguing standup should be at 11:00 because mornings are too early."
    fact = "Team standup is at 9:30 every weekday in the Juniper room."
    assert order(nlp, "When's our daily standup?", opinion, fact) == [fact, opinion]


def test_a_relatives_thing_goes_after_the_users_own(nlp: Any) -> None:
    brother = "My brother just bought a Subaru Outback, reg LN22 HBD."
    mine = "My car's a 2017 Mazda CX-5, reg KT17 RWX."
    assert order(nlp, "What's my registration number?", brother, mine) == [mine, brother]
    # asked of the brother, his line stays where the search put it
    assert order(nlp, "What did my brother buy?", brother, mine) == [brother, mine]


def test_a_plan_goes_after_what_is_so_and_a_fact_stays_first(nlp: Any) -> None:
    plan = "thinking I might open a Starling account at some point next year"
    fact = "The kickoff is on Wednesday the 14th at 10am."
    assert order(nlp, "When is the kickoff?", plan, fact) == [fact, plan]
    assert order(nlp, "When is the kickoff?", fact, plan) == [fact, plan]


def test_lines_not_so_of_one_another_end_in_one_order(nlp: Any) -> None:
    # two relatives' lines are each not so for the user and each said as so: neither moves
    # past the other (once, this swapped them for ever)
    sister = "My sister lives on Harehills Lane in Leeds."
    brother = "My brother lives on Bootham Terrace in York."
    assert order(nlp, "Where do I live?", sister, brother) == [sister, brother]


def test_a_relative_the_question_names_is_asked_about(nlp: Any) -> None:
    sister = "My sister Priya lives on Bootham Terrace in York."
    mine = "We live on Mill Road in Leeds."
    assert order(nlp, "Where should I send Priya's present?", sister, mine) == [sister, mine]
