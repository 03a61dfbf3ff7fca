"""Entities only where there is a named thing (issue 39), through the GraphQL API on the real
engines: a markdown document's code, tables, headings and sentence openers make no entity and
its mention of a known first name opens no identity question; a conversation's "I'm X", "X's"
and "our payment provider" come out as a clean name of the right type."""

from __future__ import annotations

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

TURN = """mutation($s: String!, $c: String!) {
  recordTurn(input: {sessionId: $s, userId: "u1", content: $c}) { __typename } }"""
INGEST = """mutation($path: String!, $text: String!) {
  ingestDocument(input: {sourcePath: $path, text: $text}) { __typename
    ... on DocumentResult { chunks { id } } } }"""
ENTITIES = (
    """{ entities(first: 100) { ... on EntityConnection { edges { node { name type } } } } }"""
)
QUESTIONS = """{ identityQuestions(first: 50) {
  ... on IdentityQuestionConnection { edges { node { entity { name } } } } } }"""

DOCUMENT = """# Release process

Where a release is cut, Grace Hopper signs the tag and Margaret Hamilton reviews the notes.
Peter checks the changelog before anything ships. The build raises `StopIteration` when
`release_queue.next_item()` is empty; see `requests.adapters.HTTPAdapter` for the retry hook.

## Limits

| setting | value | note |
|---------|-------|------|
| Retries | ≤ 2 | Where allowed |
| Backoff | ½ | The id of the job |
| MaxPoolSize | 10 | PoolManager default |

```python
class ReleaseQueue:
    def next_item(self) -> ReleaseItem:
        raise StopIteration("Where is the ReleaseItem?")
```

## Notes

The id of the release is kept in `ReleaseRecord.release_id`. Where the tag already exists,
Grace Hopper deletes it first. Margaret Hamilton keeps the notes short. Peter reads them.
"""


async def names(client: Client) -> dict[str, str]:
    edges = (await client.data(ENTITIES))["entities"]["edges"]
    return {e["node"]["name"]: e["node"]["type"] for e in edges}


async def test_a_document_makes_entities_only_of_its_real_names(
    brain: Brain, tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    await client.data(TURN, s="a", c="Peter Novak is one of our writers at Wolf of Blog Street.")
    await client.data(TURN, s="b", c="Peter Alvarez is the CTO at our client Brightline.")
    known = await names(client)
    assert {"Peter Novak", "Peter Alvarez"} <= set(known)

    result = (await client.data(INGEST, path="release.md", text=DOCUMENT))["ingestDocument"]
    assert result["__typename"] == "DocumentResult" and result["chunks"]

    new = {n: t for n, t in (await names(client)).items() if n not in known}
    assert new == {"Grace Hopper": "PERSON", "Margaret Hamilton": "PERSON"}, new
    # "Peter" alone could be either known Peter: the document leaves it, and asks nothing.
    questions = (await client.data(QUESTIONS))["identityQuestions"]["edges"]
    assert questions == []


async def test_conversation_names_are_cleaned_and_typed_by_evidence(
    brain: Brain, tenant_id: str
) -> None:
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    await client.data(TURN, s="a", c="Hey! I'm Dana Whitfield from Brightline.")
    await client.data(TURN, s="a", c="Dr. Maria Lopez’s report came in this morning.")
    await client.data(TURN, s="a", c="Adyen is our payment provider.")
    await client.data(TURN, s="a", c="VAT is our biggest cost this quarter.")
    found = await names(client)
    assert found.get("VAT") not in (None, "PERSON"), found  # an acronym is no one
    assert found.get("Dana Whitfield") == "PERSON", found
    assert found.get("Maria Lopez") == "PERSON", found
    assert found.get("Adyen") == "ORG", found
    assert not [n for n in found if "I'm" in n or n.endswith(("'s", "’s")) or "Dr" in n], found


async def test_a_word_capitalised_by_its_place_is_no_entity(brain: Brain, tenant_id: str) -> None:
    """A turn's opening word is capitalised whatever it is: "Glad", "Clay", "Woohoo" and "Last
    Fri" make no entity, a quoted title is one name, and the names beside them are kept."""
    _, key = await create_key(brain.graph, tenant_id)
    client = Client(brain, key)
    for said in (
        "Sounds great, Mel! Glad you had a great time.",
        "Clay is incredible, it brings me so much joy!",
        "Woohoo! Awesome, Melanie! Blue's my fave colour.",
        "Last Fri I finally took my kids to a pottery workshop.",
        'I loved reading "Charlotte\'s Web" as a kid.',
        "Luna and Oliver! They are so sweet and playful.",
        "Anthony and I went to this charity thing.",
    ):
        await client.data(TURN, s="a", c=said)
    found = await names(client)
    junk = {"Glad", "Clay", "Woohoo", "Awesome", "Blue", "Last Fri", "Fri", "Charlotte"}
    assert not junk & set(found), found
    assert {"Mel", "Melanie", "Luna", "Oliver", "Anthony", "Charlotte's Web"} <= set(found), found
