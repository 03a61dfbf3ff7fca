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


async def test_a_method_in_prose_and_a_change_to_one_of_its_amounts(client: Client) -> None:
    """A method named as such ("my sourdough method …:"), and a later change said of one
    ingredient among several amounts of the same unit ("use 325g water"), in a turn that
    also tells a past event ("had two no-shows, so … going forward")."""
    taught = await _say(
        client,
        "writing down my sourdough method so u can remind me: 100g starter, 500g strong "
        "white, 350g water, 10g salt. autolyse an hour, then 4 rounds of stretch and fold, "
        "shape, cold proof in the fridge overnight, bake at 250C",
    )
    (procedure,) = [m for m in taught["extracted"] if m["type"] == "PROCEDURAL"]  # type: ignore[index, union-attr]
    changed = await _say(
        client,
        "the dough's been way too slack so i've dropped the hydration — use 325g water from "
        "now on, everything else as before",
    )
    assert procedure["id"] in changed["supersededIds"]  # type: ignore[operator]
    (version,) = [m for m in changed["extracted"] if m["type"] == "PROCEDURAL"]  # type: ignore[index, union-attr]
    assert "325g water" in version["content"] and "500g strong white" in version["content"]
    assert "350g" not in version["content"] and "10g salt" in version["content"]
    # "By the way: …" names no process
    aside = await _say(client, "By the way: the call moved to 4, Sam is joining, bring the deck")
    assert not [m for m in aside["extracted"] if m["type"] == "PROCEDURAL"]  # type: ignore[union-attr]


async def test_a_count_asked_for_again_in_passing_changes_the_procedure(client: Client) -> None:
    """ "meeting summaries: 3 bullets tops please, i dont read past that anyway" says no change
    and reports no one's words: the count of the same things, said as so, is the new one."""
    taught = await _say(
        client,
        "when you summarize meeting notes for me keep it to 5 bullets max and put the action "
        "items in bold at the end",
    )
    (procedure,) = [m for m in taught["extracted"] if m["type"] == "PROCEDURAL"]  # type: ignore[index, union-attr]

    changed = await _say(
        client,
        "meeting summaries: 3 bullets tops please, i dont read past that anyway. still bold "
        "actions at the end",
    )

    assert procedure["id"] in changed["supersededIds"]  # type: ignore[operator]
    layer = (await client.data(CONTEXT, q="boil these scribbles from the design review down"))[
        "assembleContext"
    ]["layers"]["procedural"]
    assert "3 bullets" in layer and "5 bullets" not in layer
