"""``memories`` and ``entities`` say how many items match over every page (issue 40:
``totalCount``), with the page's own filters, and only the caller's tenant's."""

from __future__ import annotations

import uuid

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

REMEMBER = """mutation($c: String!, $t: MemoryType!) { remember(input: {content: $c, type: $t}) {
  ... on Memory { id } } }"""
SUPERSEDE = """mutation($id: ID!) { supersede(id: $id, input: {content: "Ada now leads QA"}) {
  __typename } }"""
MEMORIES = """query($types: [MemoryType!], $all: Boolean! = false) {
  memories(first: 2, filter: {types: $types, includeSuperseded: $all}) {
    ... on MemoryConnection { totalCount edges { cursor } pageInfo { hasNextPage } } } }"""
ENTITIES = """query($name: String) { entities(first: 1, filter: {name: $name}) {
  ... on EntityConnection { totalCount edges { cursor } } } }"""
CREATE = """mutation($n: String!) { createEntity(input: {name: $n, type: PERSON}) {
  __typename } }"""


async def client(brain: Brain) -> Client:
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    return Client(brain, key)


async def test_total_count_counts_every_page_with_the_filters(brain: Brain) -> None:
    mine, theirs = await client(brain), await client(brain)
    ids = []
    for content, kind in [
        ("Ada leads QA", "FACT"),
        ("The office is in Leeds", "FACT"),
        ("Peter prefers email", "PREFERENCE"),
    ]:
        ids.append((await mine.data(REMEMBER, c=content, t=kind))["remember"]["id"])
    page = (await mine.data(MEMORIES))["memories"]
    assert page["totalCount"] == 3 and len(page["edges"]) == 2 and page["pageInfo"]["hasNextPage"]
    facts = (await mine.data(MEMORIES, types=["FACT"]))["memories"]
    assert facts["totalCount"] == 2
    await mine.data(SUPERSEDE, id=ids[0])  # the old version leaves the current count
    assert (await mine.data(MEMORIES, types=["FACT"]))["memories"]["totalCount"] == 2
    everything = await mine.data(MEMORIES, types=["FACT"], all=True)
    assert everything["memories"]["totalCount"] == 3
    assert (await theirs.data(MEMORIES))["memories"]["totalCount"] == 0  # another tenant's


async def test_entities_total_count_with_a_name_filter(brain: Brain) -> None:
    mine, theirs = await client(brain), await client(brain)
    for name in ("Ada Lovelace", "Ada Byron", "Peter Alvarez"):
        assert (await mine.data(CREATE, n=name))["createEntity"]["__typename"] == "Entity"
    ada = (await mine.data(ENTITIES, name="ada"))["entities"]
    assert ada["totalCount"] == 2 and len(ada["edges"]) == 1
    assert (await mine.data(ENTITIES))["entities"]["totalCount"] >= 3
    assert (await theirs.data(ENTITIES, name="ada"))["entities"]["totalCount"] == 0
