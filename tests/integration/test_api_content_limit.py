"""The content limit is one number (issue 43, item 9): the code refused text over 20,000
characters in the parser while the README and the settings said 32,000."""

from __future__ import annotations

import time

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

SENTENCE = "Ada Lovelace reviewed the quarterly budget with the finance team on Monday. "


def text_of(chars: int) -> str:
    return (SENTENCE * (chars // len(SENTENCE) + 1))[:chars]


REMEMBER = """mutation($c: String!) { remember(input: {content: $c, type: FACT}) {
  __typename ... on InvalidInputError { field message } } }"""
TURN = """mutation($c: String!) { recordTurn(input: {sessionId: "s1", userId: "u1", content: $c}) {
  __typename ... on InvalidInputError { field message } } }"""
RESOLVE = """query($t: String!) { resolve(text: $t) {
  __typename ... on InvalidInputError { field message } } }"""


async def test_content_up_to_the_configured_limit_is_stored_and_beyond_it_refused(
    brain: Brain, tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    limit = brain.settings.limits.max_content_chars
    assert limit == 32_000  # the README's figure
    for query, name in ((REMEMBER, "remember"), (TURN, "recordTurn")):
        started = time.perf_counter()
        data = await client.data(query, c=text_of(limit))
        assert data[name]["__typename"] != "InvalidInputError", (name, data)
        print(f"{name} of {limit} characters: {time.perf_counter() - started:.1f} s")
        over = (await client.data(query, c=text_of(limit + 1)))[name]
        assert over == {
            "__typename": "InvalidInputError",
            "field": "content",
            "message": f"content is {limit + 1} characters; the limit is {limit}",
        }
    resolved = await client.data(RESOLVE, t=text_of(limit))
    assert resolved["resolve"]["__typename"] != "InvalidInputError", resolved
    refused = (await client.data(RESOLVE, t=text_of(limit + 1)))["resolve"]
    assert refused["__typename"] == "InvalidInputError" and refused["field"] == "text", refused
