"""The embedded query text: the query without its entities' names, unless that leaves nothing."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from core.types import Entity, EntityType
from retrieval.topic import has_topic, names_of, topic_of, without_names


def entity(name: str, kind: EntityType = EntityType.PERSON, *aliases: str) -> Entity:
    return Entity(
        id=name, tenant_id="t", name=name, type=kind, aliases=aliases, first_seen=0, last_seen=0
    )


def test_names_possessives_and_case_are_cut_whole_words_only() -> None:
    text = "What did Jon's friend tell JON about Jonas?"
    assert without_names(text, ["Jon"]) == "What did friend tell about Jonas?"


def test_a_person_is_also_named_by_first_name_an_org_is_not() -> None:
    peter = entity("Peter Novak", EntityType.PERSON, "Pete")
    wobs = entity("Wolf of Blog Street", EntityType.ORG, "WOBS")
    assert set(names_of([peter, wobs])) == {
        "Peter Novak",
        "Pete",
        "Peter",
        "Wolf of Blog Street",
        "WOBS",
    }


def test_topic_drops_names_but_keeps_a_query_that_is_only_a_name() -> None:
    gina = entity("Gina")
    assert topic_of("What book is Gina currently reading?", [gina]) == (
        "What book is currently reading?"
    )
    assert topic_of("Who is Gina?", [gina]) == "Who is Gina?"
    assert topic_of("Tell me about Gina's", [gina]) == "Tell me about Gina's"
    assert topic_of("What book is Anna reading?", [gina]) == "What book is Anna reading?"
    assert topic_of("What book is she reading?", []) == "What book is she reading?"


def test_has_topic() -> None:
    assert not has_topic("Who is ?") and not has_topic("what did they say about it")
    assert has_topic("what did paint") and has_topic("store")


def test_a_text_without_the_names_comes_back_unchanged() -> None:
    assert topic_of("AAA\x1f0", []) == "AAA\x1f0"  # found by the property below
    assert without_names("stock  levels\tin March", ["Peter"]) == "stock  levels\tin March"


@given(st.text(max_size=60), st.lists(st.text(min_size=1, max_size=8), max_size=3))
def test_topic_is_the_text_or_a_shorter_text_with_a_topic(text: str, names: list[str]) -> None:
    topic = topic_of(text, [entity(n) for n in names if n.strip()])
    assert topic == text or (len(topic) < len(text) and has_topic(topic))
