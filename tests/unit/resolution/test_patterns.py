"""Alias declarations, type declarations and relation patterns."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from core.types import EntityType
from resolution.patterns import OURS, find_aliases, find_relations, find_type_declarations
from resolution.types import AliasDeclaration, RelationMention


@pytest.mark.parametrize(
    ("text", "name", "alias"),
    [
        ("The company is Wolf of Blog Street, also known as WOBS.", "Wolf of Blog Street", "WOBS"),
        ("Acme Corporation aka Acme Co sent it", "Acme Corporation", "Acme Co"),
        ("Banco de España a.k.a. BdE", "Banco de España", "BdE"),
        ("International Widget Company (IWC) called", "International Widget Company", "IWC"),
        ("Search Indexer, or Indexer for short, is down", "Search Indexer", "Indexer"),
    ],
)
def test_alias_declarations(text: str, name: str, alias: str) -> None:
    assert find_aliases(text) == [AliasDeclaration(name=name, alias=alias)]


@pytest.mark.parametrize(
    "text", ["We also know that.", "Peter (our writer) called", "I (me) am here", "ok aka fine"]
)
def test_no_false_alias_declarations(text: str) -> None:
    assert find_aliases(text) == []


def test_type_declarations() -> None:
    found = find_type_declarations("The company is Wolf of Blog Street. Hooli is a big client.")
    assert {(d.name, d.type) for d in found} == {
        ("Wolf of Blog Street", EntityType.ORG),
        ("Hooli", EntityType.ORG),
    }


@pytest.mark.parametrize(
    ("text", "declared"),
    [
        ("We signed a new client, Brightwave, last week.", [("Brightwave", EntityType.ORG)]),
        ("Our new client Brightwave wants weekly reports.", [("Brightwave", EntityType.ORG)]),
        ("We have a client called Northwind Traders.", [("Northwind Traders", EntityType.ORG)]),
        ("Our new vendor Papercut sent the invoice.", [("Papercut", EntityType.ORG)]),
        ("They moved us to a tool named Linear.", [("Linear", EntityType.SYSTEM)]),
        # A capitalised word after a type word is not always its name.
        ("The client Peter mentioned is late.", []),
        ("I met the new team lead yesterday.", []),
    ],
)
def test_introductions_declare_a_type(text: str, declared: list[tuple[str, EntityType]]) -> None:
    assert [(d.name, d.type) for d in find_type_declarations(text)] == declared


def test_role_and_ours() -> None:
    assert find_relations("Peter is one of our writers.") == [
        RelationMention("Peter", "role", "writer"),
        RelationMention("Peter", "works_for", OURS),
    ]


def test_role_at_named_org_and_other_relations() -> None:
    assert find_relations("Anna is the editor at Daily Planet") == [
        RelationMention("Anna", "role", "editor"),
        RelationMention("Anna", "works_for", "Daily Planet"),
    ]
    assert find_relations("Tom works for Initech") == [
        RelationMention("Tom", "works_for", "Initech")
    ]
    assert find_relations("Berlin Office is located in Germany") == [
        RelationMention("Berlin Office", "located_in", "Germany")
    ]
    assert find_relations("Kappa Team is part of Globex") == [
        RelationMention("Kappa Team", "belongs_to", "Globex")
    ]


def test_my_dentist_is_not_my_employee() -> None:
    assert RelationMention("Peter Hale", "works_for", OURS) not in find_relations(
        "Peter Hale is my dentist"
    )


@given(st.text(max_size=300))
def test_never_raises_and_names_come_from_the_text(text: str) -> None:
    for a in find_aliases(text):
        assert a.name in text and a.alias in text and a.name != a.alias
    for r in find_relations(text):
        assert r.subject in text
