"""Procedures taught in conversation, through the public API: a ``procedural`` memory with
trigger and steps, served in the procedural layer, superseded by a changed parameter or by
the process for the same goal stated again."""

from __future__ import annotations

import uuid

import pytest

from api.auth import create_key
from api.brain import Brain
from tests.integration.api_client import Client

pytestmark = pytest.mark.integration

TURN = """mutation($content: String!) {
  recordTurn(input: {sessionId: "s1", userId: "u1", content: $content}) {
    ... on TurnResult { extracted { id type content trigger steps } supersededIds } } }"""
CONTEXT = """query($q: String!) {
  assembleContext(input: {sessionId: "ask", userId: "u1", query: $q}) {
    ... on Context { layers { procedural } } } }"""
MEMORY = """query($id: ID!) { memory(id: $id) { ... on Memory { current supersededBy { id } } } }"""


@pytest.fixture
async def client(brain: Brain) -> Client:
    _, key = await create_key(brain.graph, f"t-{uuid.uuid4().hex[:12]}")
    return Client(brain, key)


async def _say(client: Client, text: str) -> dict[str, object]:
    result: dict[str, object] = (await client.data(TURN, content=text))["recordTurn"]
    return result


async def test_a_taught_process_is_a_procedure_and_its_parameter_changes(client: Client) -> None:
    taught = await _say(
        client,
        "To check if content is passing as human, paste it into Originality.ai and reject "
        "anything under 80% human.",
    )
    (procedure,) = [m for m in taught["extracted"] if m["type"] == "PROCEDURAL"]  # type: ignore[index, union-attr]
    assert procedure["trigger"] == "check if content is passing as human"
    assert procedure["steps"] == ["paste it into Originality.ai", "reject anything under 80% human"]
    layer = (await client.data(CONTEXT, q="How do I check if content passes as human?"))[
        "assembleContext"
    ]["layers"]["procedural"]
    assert "80% human" in layer

    changed = await _say(client, "The threshold is now 90%.")
    assert procedure["id"] in changed["supersededIds"]  # type: ignore[operator]
    (version,) = [m for m in changed["extracted"] if m["type"] == "PROCEDURAL"]  # type: ignore[index, union-attr]
    assert version["steps"][1] == "reject anything under 90% human"
    old = (await client.data(MEMORY, id=procedure["id"]))["memory"]
    assert not old["current"] and old["supersededBy"]["id"] == version["id"]
    layer = (await client.data(CONTEXT, q="How do I check if content passes as human?"))[
        "assembleContext"
    ]["layers"]["procedural"]
    assert "90% human" in layer and "80%" not in layer


async def test_the_process_for_a_goal_stated_again_replaces_it(client: Client) -> None:
    first = await _say(
        client,
        "The process for onboarding a writer is: send the style guide, add them to Slack, "
        "then schedule a call.",
    )
    (old,) = first["extracted"]  # type: ignore[misc]
    assert old["type"] == "PROCEDURAL" and len(old["steps"]) == 3
    again = await _say(
        client,
        "The process for onboarding a writer is: send the contract, then add them to Notion.",
    )
    assert again["supersededIds"] == [old["id"]]
    small_talk = await _say(client, "When we got there, the food was cold.")
    assert small_talk["extracted"] == []  # a story, not a procedure
