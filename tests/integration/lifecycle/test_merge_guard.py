"""Duplicate merge never hides a different fact (issue 23): near misses that cosine alone
merges stay apart, through `remember` and `consolidate(tasks: [MERGE_DUPLICATES])`."""

from __future__ import annotations

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

REMEMBER = """mutation($content: String!) { remember(input: {content: $content, type: FACT}) {
  ... on Memory { id } } }"""
MERGE = """mutation { consolidate(tasks: [MERGE_DUPLICATES]) {
  ... on ConsolidationReport { runs { status counts { name value } } } } }"""
SEARCH = """query($q: String!) { search(input: {query: $q, topK: 20}) {
  ... on SearchResults { hits { memory { content } } } } }"""


async def test_near_misses_stay_apart_and_true_duplicates_merge(
    brain: Brain, tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    api = Client(brain, key)
    near_misses = [
        *(f"The warehouse {n} door code is 1000" for n in range(5)),
        "Peter approved the Q3 budget yesterday",
        "Anna approved the Q3 budget yesterday",
        "The team standup is every Monday",
        "The team standup is every Thursday",
        "We deploy on Fridays",
        "We don't deploy on Fridays",
    ]
    duplicate = ["The Anderson contract renews every January.", "the Anderson contract renews every January"]  # fmt: skip
    for content in near_misses + duplicate:
        await api.data(REMEMBER, content=content)

    run = (await api.data(MERGE))["consolidate"]["runs"][0]
    assert run["status"] == "DONE"
    assert {"name": "merged", "value": 1} in run["counts"]  # only the true duplicate

    found = await api.data(SEARCH, q="warehouse door code")
    contents = {h["memory"]["content"] for h in found["search"]["hits"]}
    assert {f"The warehouse {n} door code is 1000" for n in range(5)} <= contents
    current = {m.content for m in await brain.memories.page(tenant_id, first=50)}
    assert set(near_misses) <= current
    assert len(current & set(duplicate)) == 1
